import { type EngineFactory, nowebEngineFactory, nowebOptionsFromEnv, SandboxEngine, type SandboxOptions } from '@switchboard/engine-pod';
import { gowsEngineFactory, gowsOptionsFromEnv, webjsEngineFactory, webjsOptionsFromEnv } from '@switchboard/engine-pod';
import type { OutboundPolicy } from '@switchboard/kube';
import type { BuiltEngine } from '@switchboard/protocol';

/**
 * How local mode makes each engine of this build (protocol's BUILT_ENGINES: one entry each), in
 * this process. Cluster mode makes none: the engine pod does (engine-pod/src/pod/engine-catalog.ts).
 */
export type EngineFactories = Readonly<Record<BuiltEngine, EngineFactory>>;

export function localEngineFactories(options: { sandbox: SandboxOptions; outbound: OutboundPolicy }): EngineFactories {
  return {
    SANDBOX: (context) => new SandboxEngine(context, options.sandbox),
    WEBJS: webjsEngineFactory(webjsOptionsFromEnv(process.env)),
    NOWEB: nowebEngineFactory({ ...nowebOptionsFromEnv(process.env), outbound: options.outbound }),
    GOWS: gowsEngineFactory(gowsOptionsFromEnv(process.env)),
  };
}
