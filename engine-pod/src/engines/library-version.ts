import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const known = new Map<string, string>();

/**
 * The installed version of the package an engine is built on (`@whiskeysockets/baileys`,
 * `whatsapp-web.js`, `@wppconnect-team/wppconnect`), from its package.json, read once. Packages
 * do not all export that file, so it is found from the entry point the import resolves to, in
 * the nearest folder above it whose package.json has that name; the package is not loaded.
 */
export function libraryVersion(name: string): string {
  const cached = known.get(name);
  if (cached) return cached;
  const entry = fileURLToPath(import.meta.resolve(name));
  for (let dir = dirname(entry); ; dir = dirname(dir)) {
    const manifest = readManifest(join(dir, 'package.json'));
    if (manifest?.name === name && manifest.version) {
      known.set(name, manifest.version);
      return manifest.version;
    }
    if (dirname(dir) === dir) throw new Error(`no package.json of ${name} with a version above ${entry}`);
  }
}

function readManifest(path: string): { name?: string; version?: string } | null {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as { name?: string; version?: string };
  } catch {
    return null; // none in this folder (or not JSON): look one up
  }
}
