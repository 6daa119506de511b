export {
  API_VERSION,
  InvalidSpecError,
  isDeleting,
  logoutOnDelete,
  type MessagingSession,
  newMessagingSession,
  restartedAtOf,
  sessionNameOf,
  specOf,
  type StoredMessagingSession,
} from './messaging-session.js';
export { ConflictError, httpStatusOf, isConflict, orUndefinedIfNotFound, ResourceGoneError } from './api-status.js';
export { type BackoffOptions, backoffDelay } from './backoff.js';
export { withTimeout } from './with-timeout.js';
export { BOOKMARK_PERIOD_MS, DEFAULT_WATCH_QUIET_TIMEOUT_MS, ResourceInformer, type ResourceInformerOptions } from './resource-informer.js';
export { CommandClient, CommandClientError } from './command-client.js';
export { CommandObjectError, CommandObjects } from './nats/command-objects.js';
export { durableStreamConfig, JS_ERR, jsErrorCode, latestValues, type StoreOptions } from './nats/jetstream.js';
export {
  DEFAULT_MEDIA_LIFETIME_MS,
  dropSessionStores,
  ensureClusterStores,
  ensureEventStream,
  ensureSessionStores,
  EVENTS_STREAM_CONFIG,
  objectStoreExists,
  openAuthBucket,
  openLeaseBucket,
  openMediaObjects,
  openMessagesBucket,
  purgeSessionAuth,
} from './nats/stores.js';
export { type HttpListener, listenHttp } from './http-listener.js';
export {
  BUILT_IN_DENY,
  describeRefusal,
  OUTBOUND_ALLOW_VARIABLE,
  OUTBOUND_DENY_VARIABLE,
  type OutboundRefusal,
  OutboundPolicy,
} from './outbound-policy.js';
