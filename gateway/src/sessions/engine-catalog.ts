import { type EngineFactory, nowebEngineFactory, nowebOptionsFromEnv, type OutboundPolicy, SandboxEngine, type SandboxOptions } from '@switchboard/engine-pod';
import { webjsEngineFactory, webjsOptionsFromEnv } from '@switchboard/engine-pod';
import { type EngineName, type EngineSettings, SETTING_ENGINES, unsupportedSettings, unsupportedSettingsMessage } from '@switchboard/protocol';
import { ApiError } from '../http/errors.js';

/** The engines this build can run, by name. */
export type EngineCatalog = Partial<Record<EngineName, EngineFactory>>;

export function localEngineCatalog(options: { sandbox: SandboxOptions; outbound: OutboundPolicy }): EngineCatalog {
  return {
    SANDBOX: (context) => new SandboxEngine(context, options.sandbox),
    WEBJS: webjsEngineFactory(webjsOptionsFromEnv(process.env)),
    NOWEB: nowebEngineFactory({ ...nowebOptionsFromEnv(process.env), outbound: options.outbound }),
  };
}

/**
 * Throws a 422 naming the engines that are available, so the user can pick one; with `config`,
 * also one naming each setting in it the engine cannot honour (rather than ignoring it).
 */
export function requireEngine(catalog: EngineCatalog, engine: EngineName, config?: EngineSettings): EngineFactory {
  const factory = catalog[engine];
  if (!factory) {
    const available = Object.keys(catalog).join(', ');
    throw new ApiError(422, `engine ${engine} is not available in this build; available: ${available}`, {
      field: 'engine',
      engine,
      available: Object.keys(catalog),
    });
  }
  const unsupported = config ? unsupportedSettings(engine, config) : [];
  if (unsupported.length > 0) {
    throw new ApiError(422, unsupportedSettingsMessage(engine, unsupported), {
      fields: unsupported.map((setting) => `body.config.${setting}`),
      engine,
      engines: Object.fromEntries(unsupported.map((setting) => [setting, SETTING_ENGINES[setting]])),
    });
  }
  return factory;
}
