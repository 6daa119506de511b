import type { EngineLibraryVersions, EngineSettings } from '@switchboard/protocol';
import { DEFAULT_CONNECTION_CONFIG, type WAVersion } from '@whiskeysockets/baileys';
import { libraryVersion } from '../library-version.js';

/** Baileys' built-in WhatsApp Web version: what a session presents when nothing sets one. */
const LIBRARY_CLIENT_VERSION: string = DEFAULT_CONNECTION_CONFIG.version.join('.');

/** The client version a session presents: its `config.clientVersion`, else the engine's, else Baileys'. */
export function presentedClientVersion(settings: EngineSettings, engineDefault: string | undefined): string {
  return settings.clientVersion ?? engineDefault ?? LIBRARY_CLIENT_VERSION;
}

/** Baileys' `version` option for a validated client version ("2.3000.1023456789"). */
export function waVersion(version: string): WAVersion {
  const [primary, secondary, tertiary] = version.split('.').map(Number) as [number, number, number];
  return [primary, secondary, tertiary];
}

/** What NOWEB reports it runs (the session's `versions`). */
export function nowebVersions(client: string): EngineLibraryVersions {
  return { library: { name: 'Baileys', version: libraryVersion('@whiskeysockets/baileys') }, client };
}
