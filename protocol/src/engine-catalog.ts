import type { EngineSettings } from './engine-settings.js';
import type { EngineName } from './engines.js';

/**
 * The engines this build has: every other name of the interface (WPP, GOWS) is refused, by the
 * gateway with a 422 listing these and by the operator with `EngineNotAvailable`. Adding one here
 * makes every table keyed by `BuiltEngine` fail to compile until it says what the engine does.
 */
export const BUILT_ENGINES = ['SANDBOX', 'NOWEB', 'WEBJS'] as const satisfies readonly EngineName[];
export type BuiltEngine = (typeof BUILT_ENGINES)[number];

/** The built engines as plain engine names, for messages and `details.available`. */
export const AVAILABLE_ENGINES: readonly EngineName[] = BUILT_ENGINES;

export function isBuiltEngine(engine: string): engine is BuiltEngine {
  return (BUILT_ENGINES as readonly string[]).includes(engine);
}

/**
 * Which engine honours which setting of a session's config (engine-settings.ts).
 * A setting on an engine not listed would be ignored, so it is refused instead: by the gateway
 * (422) and, for resources applied with kubectl, by the operator (condition InvalidSpec).
 * NOWEB speaks to the messaging service itself; WEBJS drives a browser, SANDBOX has no network.
 */
export const SETTING_ENGINES: Readonly<Record<keyof EngineSettings, readonly BuiltEngine[]>> = {
  proxy: ['NOWEB'],
  ignore: ['NOWEB'],
  client: ['NOWEB'],
  noweb: ['NOWEB'],
};

/** The settings `config` sets that `engine` cannot honour, in the order above. */
export function unsupportedSettings(engine: EngineName, config: EngineSettings): (keyof EngineSettings)[] {
  return (Object.keys(SETTING_ENGINES) as (keyof EngineSettings)[]).filter(
    (setting) => config[setting] !== undefined && !(SETTING_ENGINES[setting] as readonly EngineName[]).includes(engine),
  );
}

/** One sentence for a refusal: which settings, and which engines take them. */
export function unsupportedSettingsMessage(engine: EngineName, settings: readonly (keyof EngineSettings)[]): string {
  const each = settings.map((setting) => `config.${setting} (only ${SETTING_ENGINES[setting].join(', ')})`);
  return `engine ${engine} cannot honour ${each.join(', ')}; leave ${settings.length > 1 ? 'them' : 'it'} out or pick an engine that can`;
}
