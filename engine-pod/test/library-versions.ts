import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENGINE_DIR } from './gows/driver.js';

/**
 * The library each socket engine should report it runs, read where each build takes it from:
 * Baileys' package.json in engine-pod's node_modules, whatsmeow's version in the Go module's go.mod
 * (what the binary's build info then says). Tests of the session's `versions` compare with these.
 */
const baileys = JSON.parse(readFileSync(join(import.meta.dirname, '../node_modules/@whiskeysockets/baileys/package.json'), 'utf8')) as {
  version: string;
};
const whatsmeow = /^\s*go\.mau\.fi\/whatsmeow (\S+)$/m.exec(readFileSync(join(ENGINE_DIR, 'go.mod'), 'utf8'))?.[1];
if (!whatsmeow) throw new Error(`no go.mau.fi/whatsmeow requirement in ${join(ENGINE_DIR, 'go.mod')}`);

export const LIBRARY_VERSIONS = {
  NOWEB: { name: 'Baileys', version: baileys.version },
  GOWS: { name: 'whatsmeow', version: whatsmeow },
} as const;
