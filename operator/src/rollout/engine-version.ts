import type { V1Pod } from '@kubernetes/client-node';
import { type BuiltEngine, clientVersionVariable, ENGINE_CATALOG } from '@switchboard/protocol';
import type { EnginePodSettings } from '../config.js';

/**
 * What a rollout moves a session from and to: the engine pod's image and the client version the
 * pod is given (SWITCHBOARD_<ENGINE>_CLIENT_VERSION; none: the library's). Everything else in the
 * pod template (resources, env, placement) still replaces a pod at once, as before.
 */
export interface EngineVersion {
  readonly image: string;
  readonly clientVersion?: string;
}

export function sameVersion(a: EngineVersion, b: EngineVersion): boolean {
  return a.image === b.image && a.clientVersion === b.clientVersion;
}

/** `image` or `image client 2.3000.1`: for logs, Events and the rollout's state. */
export function describeVersion(version: EngineVersion): string {
  return version.clientVersion === undefined ? version.image : `${version.image} (client ${version.clientVersion})`;
}

/** Which of the settings' images an engine's pods run: the engine catalog's kind. */
function imageOf(engine: BuiltEngine, settings: EnginePodSettings): string {
  const kind = ENGINE_CATALOG[engine].image;
  if (kind === 'browser') return settings.browserEngineImage;
  if (kind === 'gows') return settings.gowsEngineImage ?? settings.engineImage;
  return settings.engineImage;
}

/** The version the release asks for, for one engine (the operator's configuration). */
export function configuredVersion(engine: BuiltEngine, settings: EnginePodSettings): EngineVersion {
  const clientVersion = settings.clientVersions?.[engine];
  return { image: imageOf(engine, settings), ...(clientVersion ? { clientVersion } : {}) };
}

/** The version a pod was made with, read back from its container: pods carry no extra record of it. */
export function podVersion(pod: V1Pod, engine: BuiltEngine): EngineVersion | null {
  const container = pod.spec?.containers[0];
  if (!container?.image) return null;
  const variable = clientVersionVariable(engine);
  const clientVersion = container.env?.find((env) => env.name === variable)?.value;
  return { image: container.image, ...(clientVersion ? { clientVersion } : {}) };
}

/**
 * The settings an engine pod of this version is built from: the release's, with this engine's
 * image and client version replaced. buildEnginePod stays the one place that makes a pod.
 */
export function settingsForVersion(settings: EnginePodSettings, engine: BuiltEngine, version: EngineVersion): EnginePodSettings {
  const kind = ENGINE_CATALOG[engine].image;
  const images =
    kind === 'browser'
      ? { browserEngineImage: version.image }
      : kind === 'gows' && settings.gowsEngineImage !== undefined
        ? { gowsEngineImage: version.image }
        : { engineImage: version.image };
  const { [engine]: _, ...otherClients } = settings.clientVersions ?? {};
  const clientVersions = version.clientVersion === undefined ? otherClients : { ...otherClients, [engine]: version.clientVersion };
  return { ...settings, ...images, clientVersions };
}
