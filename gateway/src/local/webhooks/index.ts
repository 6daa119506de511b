export { OutboxDeadDeliveries, type OutboxDeadDeliveriesDeps } from './dead-deliveries.js';
export { type DeliveryObserver, NO_DELIVERY_OBSERVER } from '../../webhooks/delivery-observer.js';
export { WebhookDispatcher, type WebhookDispatcherOptions } from './dispatcher.js';
export type { MemoryLimits } from './queue-memory.js';
export { WebhookFanout, type WebhookFanoutDeps } from './fanout.js';
export { globalWebhookFromEnv } from '../../webhooks/global-hook.js';
export { retryAfterFailure, WebhookSender, type WebhookSenderOptions } from '../../webhooks/http-delivery.js';
export { logUrl } from '../../webhooks/log-url.js';
export { WebhookOutbox, webhookOutboxSchema, type DeliveryRow } from './outbox.js';
export type { DeadDeliveries, EventLog, EventLogWriter } from '../../webhooks/ports.js';
export { planReplay, type PlannedReplay } from '../../webhooks/replay-plan.js';
export { resolveRetries, retryDelayMs, type RetrySchedule } from '../../webhooks/retry-schedule.js';
export {
  HEADER_HMAC,
  HEADER_HMAC_ALGORITHM,
  HEADER_REQUEST_ID,
  HEADER_TIMESTAMP,
  HMAC_ALGORITHM,
  signBody,
} from '../../webhooks/signature.js';
