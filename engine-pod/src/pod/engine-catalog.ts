import type { OutboundPolicy } from '@switchboard/kube/pod';
import { AVAILABLE_ENGINES, type BuiltEngine, type EngineName, isBuiltEngine } from '@switchboard/protocol';
import type { EngineFactory } from '../engine.js';
import { nowebEngineFactory } from '../engines/noweb/noweb-engine.js';
import { nowebOptionsFromEnv } from '../engines/noweb/options.js';
import { gowsEngineFactory } from '../engines/gows/gows-engine.js';
import { gowsOptionsFromEnv } from '../engines/gows/options.js';
import { DEFAULT_SANDBOX_OPTIONS, SandboxEngine } from '../engines/sandbox/sandbox-engine.js';
import { webjsEngineFactory, webjsOptionsFromEnv } from '../engines/webjs/client-factory.js';

export interface EngineTuning {
  /** SANDBOX: how often the QR is renewed while waiting for a scan (tests shorten it). */
  readonly sandboxQrRenewMs?: number;
  /** NOWEB: the outbound address policy a session's proxy is held to; unset: the built-in rules. */
  readonly outbound?: OutboundPolicy;
}

/** How the engine pod makes each engine of this build (protocol's BUILT_ENGINES: one entry each). */
const CATALOG: Readonly<Record<BuiltEngine, (tuning: EngineTuning) => EngineFactory>> = {
  SANDBOX: (tuning) => {
    const options = { ...DEFAULT_SANDBOX_OPTIONS, qrRenewMs: tuning.sandboxQrRenewMs ?? DEFAULT_SANDBOX_OPTIONS.qrRenewMs };
    return (context) => new SandboxEngine(context, options);
  },
  WEBJS: () => webjsEngineFactory(webjsOptionsFromEnv(process.env)),
  NOWEB: (tuning) => {
    const options = nowebOptionsFromEnv(process.env);
    return nowebEngineFactory(tuning.outbound ? { ...options, outbound: tuning.outbound } : options);
  },
  // The engine pod runs whatsmeow as its child, as local mode does (docs/architecture.md, "GOWS").
  GOWS: () => gowsEngineFactory(gowsOptionsFromEnv(process.env)),
};

/** The config check rejects an engine this build does not have, before anything starts. */
export function engineFactory(engine: EngineName, tuning: EngineTuning = {}): EngineFactory {
  if (!isBuiltEngine(engine)) throw new Error(`engine ${engine} is not in this engine pod build (it has ${AVAILABLE_ENGINES.join(', ')})`);
  return CATALOG[engine](tuning);
}
