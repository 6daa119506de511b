export { buildApp, type AppDeps } from './app.js';
export { ClusterSessionBackend, type ClusterBackendOptions } from './cluster/cluster-backend.js';
export { type ClusterGateway, type ClusterGatewayOptions, createClusterGateway } from './cluster/create-cluster-gateway.js';
export { DEAD_LETTERS, ensureGatewayStreams, LiveEventFeed, REPLAYS } from './cluster/event-source.js';
export { queueConsumerName, webhookTargets } from './cluster/webhook-targets.js';
export { JetStreamWebhookWorker, type WebhookWorkerOptions } from './cluster/webhook-worker.js';
export { ConfigError, readConfig, type GatewayConfig, type GatewayMode } from './config.js';
export { createLocalGateway, type LocalGateway, type LocalGatewayOptions } from './local/create-local-gateway.js';
export { GatewayMetrics } from './metrics/gateway-metrics.js';
