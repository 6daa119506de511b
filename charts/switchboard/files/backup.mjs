// The scheduled backup (templates/backup-cronjob.yaml), run by Node in the gateway image: asks the
// gateway for an archive (POST /api/admin/backup, the same call as `switchboard backup`), writes it
// to the volume through a temporary name (a failed run never leaves half an archive), keeps the
// newest BACKUP_KEEP there, and PUTs it to BACKUP_UPLOAD_URL when one is set. Exits non-zero on any
// failure, so the Job fails and the CronJob's history and alerts show it.
import { Buffer } from 'node:buffer';
import { readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { URL } from 'node:url';

const env = process.env;
// A Secret made from a file usually ends with a newline that is not part of the passphrase
// (`switchboard restore --passphrase-file` drops it too).
const passphrase = (env.SWITCHBOARD_BACKUP_PASSPHRASE ?? '').replace(/\r?\n$/, '');
const name = `switchboard-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;

const response = await globalThis.fetch(new URL('/api/admin/backup', env.SWITCHBOARD_URL), {
  method: 'POST',
  headers: { 'x-api-key': env.SWITCHBOARD_API_KEY ?? '', 'content-type': 'application/json' },
  body: JSON.stringify({ passphrase }),
});
const archive = await response.text();
if (!response.ok) {
  console.error(JSON.stringify({ msg: 'backup refused by the gateway', status: response.status, body: archive.slice(0, 2000) }));
  process.exit(1);
}

if (env.BACKUP_DIR) {
  const partial = join(env.BACKUP_DIR, `.${name}.partial`);
  writeFileSync(partial, archive, { mode: 0o600 });
  renameSync(partial, join(env.BACKUP_DIR, name));
  // The names sort by time; only whole archives carry the prefix without a leading dot.
  const archives = readdirSync(env.BACKUP_DIR).filter((file) => /^switchboard-.*\.json$/.test(file)).sort();
  const keep = Number(env.BACKUP_KEEP ?? '7');
  for (const old of archives.slice(0, Math.max(0, archives.length - keep))) rmSync(join(env.BACKUP_DIR, old));
}

if (env.BACKUP_UPLOAD_URL) {
  // A URL ending in "/" is a folder (WebDAV, a bucket with a signed prefix): the archive's name goes after it.
  const target = new URL(env.BACKUP_UPLOAD_URL.endsWith('/') ? env.BACKUP_UPLOAD_URL + name : env.BACKUP_UPLOAD_URL);
  const headers = { 'content-type': 'application/json' };
  // fetch refuses a URL with credentials in it: they go as Basic authentication instead.
  if (target.username || target.password) {
    const user = `${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`;
    headers.authorization = `Basic ${Buffer.from(user).toString('base64')}`;
    target.username = target.password = '';
  }
  const upload = await globalThis.fetch(target, { method: 'PUT', headers, body: archive });
  if (!upload.ok) {
    console.error(JSON.stringify({ msg: 'backup upload failed', status: upload.status }));
    process.exit(1);
  }
}
console.log(JSON.stringify({ msg: 'backup written', name, bytes: Buffer.byteLength(archive) }));
