export type { AuthStateStore } from './auth-state/store.js';
export { FileAuthStateStore } from './auth-state/file-store.js';
export { makePrivateDirSync, makePrivateFileSync, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, tighten } from './private-files.js';
export { CommandError } from './command-error.js';
export type { Engine, EngineContext, EngineFactory, EngineLog } from './engine.js';
export { EngineHost, type EngineHostOptions, type HostedEvent } from './engine-host.js';
export { engineFactory, type EngineTuning } from './engine-factories.js';
export { eventIssues, type InvalidEvent } from './event-validator.js';
export { eventIdsAfter } from './event-ids.js';
export { DEFAULT_SANDBOX_OPTIONS, SandboxEngine, type SandboxOptions } from './engines/sandbox/sandbox-engine.js';
export {
  createWebjsClient,
  DEFAULT_WEBJS_OPTIONS,
  WEBJS_BROWSER_FLAGS,
  webjsEngineFactory,
  webjsLaunchOptions,
  CHROMIUM_LAUNCHER,
  webjsOptionsFromEnv,
} from './engines/webjs/client-factory.js';
export { chromiumPathFromEnv, DEFAULT_CHROMIUM_PATH } from './engines/webjs/chromium-path.js';
export { wppEngineFactory } from './engines/wpp/wpp-engine.js';
export { StoreAuthStrategy } from './engines/webjs/store-auth-strategy.js';
export { CommandServer } from './cluster/command-server.js';
export { EventPublisher } from './cluster/event-publisher.js';
export { authKeyToken, NatsAuthStateStore } from './cluster/nats-auth-state-store.js';
export { SessionLease } from './cluster/session-lease.js';
export { notSupportedError, wrongStatusError } from './command-rules.js';
export { NowebEngine, nowebEngineFactory } from './engines/noweb/noweb-engine.js';
export { DEFAULT_NOWEB_OPTIONS, type NowebOptions, nowebOptionsFromEnv } from './engines/noweb/options.js';
export type { MediaFile, MediaFileInfo, MediaStore, StoredMedia } from './media/media-store.js';
export { DEFAULT_MEDIA_MAX_BYTES, MEDIA_MAX_BYTES_VARIABLE, MediaTooLargeError } from './media/media-limit.js';
export { mediaUrl, newMediaId } from './media/media-url.js';
export { NatsMediaStore, purgeSessionMedia } from './cluster/nats-media-store.js';
export { type HistoryPage, type LidPair, type MessageStore, forgetChatHistory, readHistory, type StoredChat } from './history/message-store.js';
export { HistoryRecorder } from './history/history-recorder.js';
export { NatsMessageStore, purgeSessionMessages } from './cluster/nats-message-store.js';
export { guardedAgent } from './outbound/guarded-agent.js';
export { blockedAddressOf } from './outbound/guarded-lookup.js';
export { proxyServerUrl } from './engines/noweb/socket-settings.js';
export { GowsEngine, gowsEngineFactory } from './engines/gows/gows-engine.js';
export { type GowsOptions, gowsBinaryProblem, gowsOptionsFromEnv } from './engines/gows/options.js';
export { resolveFile } from './media/resolve-file.js';
export { type ConversionLimits, type ConversionTarget, convertMedia, DEFAULT_CONVERSION_LIMITS } from './media/convert.js';
export { DAY_MS, MINUTE_MS, type HoldReason, type SentSend } from './sending/pacing.js';
export { type PacedEngineCommand, SendPacer, type SendPacerOptions, type SendQueueObserver, type SendQueues } from './sending/send-pacer.js';
export { SendQueueMetrics } from './sending/queue-metrics.js';
export { wentOut } from './sending/went-out.js';
export type { Awaitable, QueuedSendRow, SendQueueStore } from './sending/send-queue-store.js';
