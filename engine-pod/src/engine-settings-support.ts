import type { EngineName, EngineSettings } from '@switchboard/protocol';

/**
 * Which engine honours which setting of a session's config (engine-settings.ts in protocol/).
 * A setting on an engine not listed would be ignored, so it is refused instead: by the gateway
 * (422) and, for resources applied with kubectl, by the operator (condition InvalidSpec).
 * NOWEB speaks to the messaging service itself; WEBJS drives a browser, SANDBOX has no network.
 */
export const SETTING_ENGINES: Readonly<Record<keyof EngineSettings, readonly EngineName[]>> = {
  proxy: ['NOWEB'],
  ignore: ['NOWEB'],
  client: ['NOWEB'],
  noweb: ['NOWEB'],
};

/** The settings `config` sets that `engine` cannot honour, in the order above. */
export function unsupportedSettings(engine: EngineName, config: EngineSettings): (keyof EngineSettings)[] {
  return (Object.keys(SETTING_ENGINES) as (keyof EngineSettings)[]).filter(
    (setting) => config[setting] !== undefined && !SETTING_ENGINES[setting].includes(engine),
  );
}

/** One sentence for a refusal: which settings, and which engines take them. */
export function unsupportedSettingsMessage(engine: EngineName, settings: readonly (keyof EngineSettings)[]): string {
  const each = settings.map((setting) => `config.${setting} (only ${SETTING_ENGINES[setting].join(', ')})`);
  return `engine ${engine} cannot honour ${each.join(', ')}; leave ${settings.length > 1 ? 'them' : 'it'} out or pick an engine that can`;
}
