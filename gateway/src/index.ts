export { type ClusterGateway, type ClusterGatewayOptions, createClusterGateway } from './cluster/create-cluster-gateway.js';
export { ConfigError, readConfig, type GatewayConfig } from './config.js';
export { createLocalGateway, type LocalGateway, type LocalGatewayOptions } from './local/create-local-gateway.js';
export { sessionAccess } from './auth/access.js';
export type { PublishedEvent } from './events/event-bus.js';
