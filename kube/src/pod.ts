/**
 * What an engine pod uses of this package: the NATS stores and command objects, the outbound
 * address policy and the HTTP listener, without the Kubernetes client. `@kubernetes/client-node`
 * is most of an engine pod's start-up and memory when loaded (1.1 s and about 70 MiB of RSS,
 * measured with `node bench/dist/all.js engine-pods`), and a pod never talks to the API server:
 * engine-pod imports `@switchboard/kube/pod`, and a test keeps the client out of its module graph.
 */
export { withTimeout } from './with-timeout.js';
export { type BackoffOptions, backoffDelay } from './backoff.js';
export { CommandObjectError, CommandObjects } from './nats/command-objects.js';
export { durableStreamConfig, ensureStream, JS_ERR, jsErrorCode, latestValues, openKv, type StoreOptions } from './nats/jetstream.js';
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
  openSendQueuesBucket,
  purgeSessionAuth,
  purgeSessionSendQueue,
} from './nats/stores.js';
export {
  creationOf,
  isProductStream,
  keepReplicas,
  MAX_NATS_REPLICAS,
  NATS_REPLICAS_VARIABLE,
  NATS_SEED_PATTERN,
  NATS_SEED_VARIABLE,
  raiseCreated,
  raiseReplicas,
  replicasOf,
  useReplicas,
  whileSeedJoins,
} from './nats/replication.js';
export { natsLiveness } from './nats/liveness.js';
export { type HttpListener, listenHttp } from './http-listener.js';
export {
  BUILT_IN_DENY,
  describeRefusal,
  OUTBOUND_ALLOW_VARIABLE,
  OUTBOUND_DENY_VARIABLE,
  type OutboundRefusal,
  OutboundPolicy,
} from './outbound-policy.js';
