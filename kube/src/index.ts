export {
  API_VERSION,
  InvalidSpecError,
  isDeleting,
  logoutOnDelete,
  type MessagingSession,
  newMessagingSession,
  restartedAtOf,
  sessionClaimProblem,
  sessionNameOf,
  specOf,
  type StoredMessagingSession,
} from './messaging-session.js';
export { ConflictError, httpStatusOf, isConflict, orUndefinedIfNotFound, ResourceGoneError } from './api-status.js';
export { BOOKMARK_PERIOD_MS, DEFAULT_WATCH_QUIET_TIMEOUT_MS, ResourceInformer, type ResourceInformerOptions } from './resource-informer.js';
export { CommandClient, CommandClientError } from './command-client.js';
export { reusingConnections } from './kube-connections.js';
// Everything that does not need the Kubernetes client, which engine pods import on its own.
export * from './pod.js';
