import { type EngineFactory, nowebEngineFactory, nowebOptionsFromEnv, SandboxEngine, type SandboxOptions } from '@switchboard/engine-pod';
import { webjsEngineFactory, webjsOptionsFromEnv } from '@switchboard/engine-pod';
import type { EngineName } from '@switchboard/protocol';
import { ApiError } from '../http/errors.js';

/** The engines this build can run, by name. */
export type EngineCatalog = Partial<Record<EngineName, EngineFactory>>;

export function localEngineCatalog(options: { sandbox: SandboxOptions }): EngineCatalog {
  return {
    SANDBOX: (context) => new SandboxEngine(context, options.sandbox),
    WEBJS: webjsEngineFactory(webjsOptionsFromEnv(process.env)),
    NOWEB: nowebEngineFactory(nowebOptionsFromEnv(process.env)),
  };
}

/** Throws a 422 naming the engines that are available, so the user can pick one. */
export function requireEngine(catalog: EngineCatalog, engine: EngineName): EngineFactory {
  const factory = catalog[engine];
  if (!factory) {
    const available = Object.keys(catalog).join(', ');
    throw new ApiError(422, `engine ${engine} is not available in this build; available: ${available}`, {
      field: 'engine',
      engine,
      available: Object.keys(catalog),
    });
  }
  return factory;
}
