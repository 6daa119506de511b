export { OutboxDeadDeliveries, type OutboxDeadDeliveriesDeps } from './dead-deliveries.js';
export { type DeliveryObserver, NO_DELIVERY_OBSERVER } from './delivery-observer.js';
export { WebhookDispatcher, type DeliveryCounters, type WebhookDispatcherOptions } from './dispatcher.js';
export type { MemoryLimits } from './queue-memory.js';
export { WebhookFanout, type WebhookFanoutDeps } from './fanout.js';
export { globalWebhookFromEnv } from './global-hook.js';
export { retryAfterFailure, WebhookSender, type WebhookSenderOptions } from './http-delivery.js';
export { logUrl } from './log-url.js';
export { WebhookOutbox, webhookOutboxSchema, type DeliveryRow } from './outbox.js';
export type { DeadDeliveries, EventLog, EventLogWriter } from './ports.js';
export { planReplay, type PlannedReplay } from './replay-plan.js';
export { resolveRetries, retryDelayMs, type RetrySchedule } from './retry-schedule.js';
export {
  HEADER_HMAC,
  HEADER_HMAC_ALGORITHM,
  HEADER_REQUEST_ID,
  HEADER_TIMESTAMP,
  HMAC_ALGORITHM,
  signBody,
} from './signature.js';
