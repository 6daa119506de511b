import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EngineLibraryVersions, EngineSettings } from '@switchboard/protocol';
import { DEFAULT_CONNECTION_CONFIG, type WAVersion } from '@whiskeysockets/baileys';

/** Baileys' built-in WhatsApp Web version: what a session presents when nothing sets one. */
const LIBRARY_CLIENT_VERSION: string = DEFAULT_CONNECTION_CONFIG.version.join('.');

/**
 * Baileys' version, from its package.json: its `exports` do not include the file, so it is read
 * from beside the entry point the import resolves to (`lib/index.js`, one folder down).
 */
function baileysVersion(): string {
  const entry = fileURLToPath(import.meta.resolve('@whiskeysockets/baileys'));
  const manifest = JSON.parse(readFileSync(join(dirname(dirname(entry)), 'package.json'), 'utf8')) as { name?: string; version?: string };
  if (manifest.name !== '@whiskeysockets/baileys' || !manifest.version) throw new Error(`no Baileys package.json above ${entry}`);
  return manifest.version;
}

let library: string | undefined;

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
  library ??= baileysVersion();
  return { library: { name: 'Baileys', version: library }, client };
}
