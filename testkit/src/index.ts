export { WsClient } from './ws-client.js';
export { freePort } from './free-port.js';
export { type ApiCall, apiClient } from './api-client.js';
export { type NatsServer, type NatsServerOptions, startNatsServer } from './nats-server.js';
export { OAuthIssuer, type TokenOptions } from './oauth-issuer.js';
export { type ReceivedHook, WebhookReceiver } from './webhook-receiver.js';
export { waitFor } from './wait.js';
export { type AssertionOverrides, type KeyKind, type RequestOptions, SoftAuthenticator } from './soft-authenticator.js';
export { sample } from './prometheus-text.js';
