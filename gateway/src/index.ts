export { buildApp, type AppDeps } from './app.js';
export { readConfig, type GatewayConfig } from './config.js';
export { createLocalGateway, type LocalGateway, type LocalGatewayOptions } from './local.js';
