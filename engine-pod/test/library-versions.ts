import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENGINE_DIR } from './gows/driver.js';

/**
 * The library each engine should report it runs, read where each build takes it from: the
 * package.json of Baileys, whatsapp-web.js and WPPConnect in engine-pod's node_modules,
 * whatsmeow's version in the Go module's go.mod (what the binary's build info then says). Tests
 * of the session's `versions` compare with these.
 */
const installed = (name: string) =>
  (JSON.parse(readFileSync(join(import.meta.dirname, '../node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
const whatsmeow = /^\s*go\.mau\.fi\/whatsmeow (\S+)$/m.exec(readFileSync(join(ENGINE_DIR, 'go.mod'), 'utf8'))?.[1];
if (!whatsmeow) throw new Error(`no go.mau.fi/whatsmeow requirement in ${join(ENGINE_DIR, 'go.mod')}`);

export const LIBRARY_VERSIONS = {
  NOWEB: { name: 'Baileys', version: installed('@whiskeysockets/baileys') },
  GOWS: { name: 'whatsmeow', version: whatsmeow },
  WEBJS: { name: 'whatsapp-web.js', version: installed('whatsapp-web.js') },
  WPP: { name: '@wppconnect-team/wppconnect', version: installed('@wppconnect-team/wppconnect') },
} as const;
