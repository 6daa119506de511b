import type { EngineName } from '@switchboard/protocol';
import type { EngineFactory } from '../engine.js';
import { nowebEngineFactory } from '../engines/noweb/noweb-engine.js';
import { nowebOptionsFromEnv } from '../engines/noweb/options.js';
import type { OutboundPolicy } from '../outbound/outbound-policy.js';
import { DEFAULT_SANDBOX_OPTIONS, SandboxEngine } from '../engines/sandbox/sandbox-engine.js';
import { webjsEngineFactory, webjsOptionsFromEnv } from '../engines/webjs/client-factory.js';

export interface EngineTuning {
  /** SANDBOX: how often the QR is renewed while waiting for a scan (tests shorten it). */
  readonly sandboxQrRenewMs?: number;
  /** NOWEB: the outbound address policy a session's proxy is held to; unset: the built-in rules. */
  readonly outbound?: OutboundPolicy;
}

/** The engines this build of the engine pod can run; the others ship later. */
const CATALOG: Partial<Record<EngineName, (tuning: EngineTuning) => EngineFactory>> = {
  SANDBOX: (tuning) => {
    const options = { ...DEFAULT_SANDBOX_OPTIONS, qrRenewMs: tuning.sandboxQrRenewMs ?? DEFAULT_SANDBOX_OPTIONS.qrRenewMs };
    return (context) => new SandboxEngine(context, options);
  },
  WEBJS: () => webjsEngineFactory(webjsOptionsFromEnv(process.env)),
  NOWEB: (tuning) => {
    const options = nowebOptionsFromEnv(process.env);
    return nowebEngineFactory(tuning.outbound ? { ...options, outbound: tuning.outbound } : options);
  },
};

export const AVAILABLE_ENGINES = Object.keys(CATALOG) as EngineName[];

/** The config check rejects an engine this build does not have, before anything starts. */
export function engineFactory(engine: EngineName, tuning: EngineTuning = {}): EngineFactory {
  const make = CATALOG[engine];
  if (!make) throw new Error(`engine ${engine} is not in this engine pod build (it has ${AVAILABLE_ENGINES.join(', ')})`);
  return make(tuning);
}
