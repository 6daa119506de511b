export { MESSAGING_SESSION } from '@switchboard/protocol';
export { type OperatorConfig, type EnginePodSettings, type EngineResources, ConfigError, readConfig } from './config.js';
export { type OperatorOptions, type RunningOperator, startOperator } from './operator.js';
export { type LeaseTimings, DEFAULT_LEASE_TIMINGS, LeaderElector } from './leader-election.js';
export { WorkQueue } from './work-queue.js';
export { buildEnginePod } from './reconcile/engine-pod-spec.js';
export { computeStatus } from './reconcile/status.js';
export { purgeSessionAuth } from '@switchboard/engine-pod';
