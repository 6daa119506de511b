export type { AuthStateStore } from './auth-state/store.js';
export { FileAuthStateStore } from './auth-state/file-store.js';
export { makePrivateDir, makePrivateDirSync, makePrivateFileSync, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, tighten } from './private-files.js';
export { CommandError } from './command-error.js';
export type { Engine, EngineContext, EngineFactory, EngineLog, SendTextArgs } from './engine.js';
export { EngineHost, type EngineHostOptions, type HostedEvent } from './engine-host.js';
export { eventIssues, type InvalidEvent } from './event-validator.js';
export { DEFAULT_SANDBOX_OPTIONS, SandboxEngine, type SandboxOptions } from './engines/sandbox/sandbox-engine.js';
export {
  createWebjsClient,
  DEFAULT_WEBJS_OPTIONS,
  WEBJS_BROWSER_FLAGS,
  webjsEngineFactory,
  webjsLaunchOptions,
  type WebjsOptions,
  webjsOptionsFromEnv,
} from './engines/webjs/client-factory.js';
export { WebjsEngine } from './engines/webjs/webjs-engine.js';
export { StoreAuthStrategy, type StoreAuthStrategyOptions } from './engines/webjs/store-auth-strategy.js';
export type { WebjsClientEvents, WebjsClientLike, WebjsEventName } from './engines/webjs/webjs-client.js';
export { CommandObjects } from './cluster/command-objects.js';
export { CommandServer, type CommandServerOptions } from './cluster/command-server.js';
export { parseSessionCommand } from './cluster/command-parse.js';
export {
  ensureEventStream,
  type EventBarrier,
  EventPublisher,
  type EventPublisherOptions,
  EVENTS_STREAM_CONFIG,
} from './cluster/event-publisher.js';
export { durableStreamConfig, ensureStream, JS_ERR, jsErrorCode, type StoreOptions } from './cluster/jetstream.js';
export { ensureClusterStores } from './cluster/cluster-stores.js';
export { authKeyToken, NatsAuthStateStore, openAuthBucket, purgeSessionAuth } from './cluster/nats-auth-state-store.js';
export { type LeaseRecord, SessionLease, type SessionLeaseOptions } from './cluster/session-lease.js';
export { notSupportedError, simulateNotSupported, statusesNeededBy, wrongStatusError } from './command-rules.js';
export { NowebEngine, nowebEngineFactory } from './engines/noweb/noweb-engine.js';
export { DEFAULT_NOWEB_OPTIONS, type NowebOptions, nowebOptionsFromEnv } from './engines/noweb/options.js';
export { DEFAULT_MEDIA_LIFETIME_MS, type MediaFile, type MediaStore, type StoredMedia } from './media/media-store.js';
export { mediaUrl, newMediaId } from './media/media-url.js';
export { NatsMediaStore, type NatsMediaStoreOptions, purgeSessionMedia } from './cluster/nats-media-store.js';
export { type HistoryPage, type MessageStore, readHistory } from './history/message-store.js';
export { matchesPage, type OrderedRecord, selectPage } from './history/history-page.js';
export { furtherAck, HistoryRecorder, type RecordedEvent } from './history/history-recorder.js';
export { NatsMessageStore, openMessagesBucket, purgeSessionMessages } from './cluster/nats-message-store.js';
export { type HttpListener, listenHttp } from './pod/http-listener.js';
export { BlockedAddressError, blockedAddressOf, guardedAgent } from './outbound/guarded-agent.js';
export { proxyServerUrl } from './engines/noweb/socket-settings.js';
export {
  BUILT_IN_DENY,
  describeRefusal,
  OUTBOUND_ALLOW_VARIABLE,
  OUTBOUND_DENY_VARIABLE,
  type OutboundRefusal,
  OutboundPolicy,
} from './outbound/outbound-policy.js';
