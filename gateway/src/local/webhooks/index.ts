export { OutboxDeadDeliveries } from './dead-deliveries.js';
export { WebhookDispatcher, type WebhookDispatcherOptions } from './dispatcher.js';
export { WebhookFanout } from './fanout.js';
export { WebhookOutbox, webhookOutboxSchema } from './outbox.js';
export { SqliteWebhookStates, webhookStatesSchema } from './webhook-states.js';
