export type { AuthStateStore } from './auth-state/store.js';
export { FileAuthStateStore } from './auth-state/file-store.js';
export { CommandError } from './command-error.js';
export type { Engine, EngineContext, EngineFactory, EngineLog, SendTextArgs } from './engine.js';
export { EngineHost, type EngineHostOptions, type HostedEvent } from './engine-host.js';
export { DEFAULT_SANDBOX_OPTIONS, SandboxEngine, type SandboxOptions } from './engines/sandbox/sandbox-engine.js';
