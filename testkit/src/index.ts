export { WsClient } from './ws-client.js';
export { freePort } from './free-port.js';
export { type ApiCall, type ApiResponse, apiClient } from './api-client.js';
export { type NatsServer, natsServerBinary, startNatsServer } from './nats-server.js';
export { type ReceivedHook, WebhookReceiver } from './webhook-receiver.js';
export { waitFor } from './wait.js';
