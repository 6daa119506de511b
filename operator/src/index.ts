export { type OperatorConfig, readConfig } from './config.js';
export { DEFAULT_ENGINE_RESOURCES, engineNodeOptions } from './engine-resources.js';
export { type OperatorOptions, type RunningOperator, startOperator } from './operator.js';
export { buildEnginePod } from './reconcile/engine-pod-spec.js';
export { loadOrCreateNatsAuthIn } from './nats-auth/stored-auth.js';
export { chartSchemaWithEngines, chartValuesWithEngines } from './chart/engine-values.js';
export { rolloutConfigMapName } from './rollout/rollout-store.js';
