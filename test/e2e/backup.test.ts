// Cluster mode end to end: `switchboard backup` of an install with paired sessions (SANDBOX, and
// NOWEB on the fake WhatsApp server), the install taken away whole (its API server, namespace and
// NATS with its data), a fresh one in another namespace with a fresh NATS, `switchboard restore`:
// every session WORKING again with no new QR (the fake phone never scans again), the keys still
// open what they opened. And archives the restore refuses, each changing nothing.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { KV_BUCKETS } from '@switchboard/protocol';
import { waitFor, WebhookReceiver } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakePhone, FakeWaServer } from '../../engine-pod/test/fake-wa/index.js';
import { decryptPairings } from '../../gateway/src/cluster/backup/pairing-cipher.js';
import { rawQr, waitForStatus, workingSession } from '../contract/harness.js';
import { ADMIN_KEY, type ClusterEnvironment, connectNats, type GatewayProcess, startClusterEnvironment } from './support/cluster-environment.js';

const run = promisify(execFile);
const cli = resolve(fileURLToPath(import.meta.url), '../../../cli/dist/main.js');
/** What the chart's CronJob runs (its ConfigMap holds this file as it is: chart-backup.test.ts). */
const cronScript = resolve(fileURLToPath(import.meta.url), '../../../charts/switchboard/files/backup.mjs');
const PASSPHRASE = 'correct horse battery staple';
const HMAC_KEY = 'backup-hmac-key-never-in-the-archive';

let fake: FakeWaServer;
let phone: FakePhone;
let envA: ClusterEnvironment | undefined;
let envB: ClusterEnvironment | undefined;
let gwB: GatewayProcess;
let statuses: WebhookReceiver;
let archivePath: string;
let archive: any;
/** What two runs of the chart's scheduled backup left: the files on its volume and the uploads. */
const scheduled: { files: string[]; uploads: { path: string; authorization: string; body: any }[] } = { files: [], uploads: [] };
const keys: Record<'all' | 'nora' | 'control', string> = { all: '', nora: '', control: '' };

const engineEnv = () => ({ SWITCHBOARD_NOWEB_WS_URL: fake.url, SWITCHBOARD_NOWEB_CONNECT_ATTEMPTS: '3' });

/** The CLI as a user runs it, against one gateway. */
const switchboard = (gw: GatewayProcess, ...args: string[]) =>
  run(process.execPath, [cli, ...args], {
    env: { ...process.env, SWITCHBOARD_URL: gw.url, SWITCHBOARD_API_KEY: ADMIN_KEY, SWITCHBOARD_BACKUP_PASSPHRASE: PASSPHRASE },
  });

/** What the fresh install holds: its sessions and the keys of its auth state bucket. */
async function installState(env: ClusterEnvironment, gw: GatewayProcess): Promise<{ sessions: string[]; authKeys: string[] }> {
  const nc = await connectNats(env);
  try {
    const authKeys: string[] = [];
    for await (const key of await (await nc.jetstream().views.kv(KV_BUCKETS.auth, { bindOnly: true })).keys()) authKeys.push(key);
    const listed = await gw.api('GET', '/api/sessions?all=true');
    return { sessions: (listed.body as { name: string }[]).map((s) => s.name), authKeys };
  } finally {
    await nc.close();
  }
}

/** The chart's backup script, twice, as its CronJob runs it: onto a volume keeping one, and PUT to a URL with credentials. */
async function runScheduledBackup(gw: GatewayProcess): Promise<void> {
  const volume = mkdtempSync(join(resolve(archivePath, '..'), 'backup-volume-'));
  const receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      scheduled.uploads.push({ path: request.url ?? '', authorization: request.headers.authorization ?? '', body: JSON.parse(body) });
      response.writeHead(201).end();
    });
  });
  await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
  try {
    const env = {
      ...process.env,
      SWITCHBOARD_URL: gw.url,
      SWITCHBOARD_API_KEY: ADMIN_KEY,
      // As a Secret made from a file holds it.
      SWITCHBOARD_BACKUP_PASSPHRASE: `${PASSPHRASE}\n`,
      BACKUP_DIR: volume,
      BACKUP_KEEP: '1',
      BACKUP_UPLOAD_URL: `http://backup:s3cret@127.0.0.1:${String((receiver.address() as AddressInfo).port)}/archives/`,
    };
    for (let i = 0; i < 2; i++) await run(process.execPath, [cronScript], { env });
    scheduled.files = readdirSync(volume);
  } finally {
    receiver.close();
    rmSync(volume, { recursive: true, force: true });
  }
}

beforeAll(async () => {
  fake = await FakeWaServer.start();
  envA = await startClusterEnvironment({ namespace: 'switchboard-e2e-backup-a', engineEnv: engineEnv() });
  await envA.startOperator('operator-a');
  await envA.waitForOperatorLeader('operator-a');
  const gwA = await envA.startGateway();

  await workingSession(gwA, 'sandy');
  const created = await gwA.api('POST', '/api/sessions', {
    name: 'nora',
    engine: 'NOWEB',
    config: { webhooks: [{ url: 'http://127.0.0.1:9/hook', events: ['message'], hmac: { key: HMAC_KEY } }] },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  phone = await fake.scanQr(await rawQr(gwA, 'nora', 60_000), { pushName: 'Nora' });
  await waitForStatus(gwA, 'nora', 'WORKING', 60_000);

  keys.all = (await gwA.api('POST', '/api/keys', {})).body.key;
  keys.nora = (await gwA.api('POST', '/api/keys', { session: 'nora' })).body.key;
  keys.control = (await gwA.api('POST', '/api/keys/control', { session: 'nora' })).body.key;

  // A session deleted with kubectl keeps its pairing in sb_auth: auth state no session will run
  // after a restore, which the backup leaves out.
  await workingSession(gwA, 'gone');
  await envA.cp.kubectl(['delete', 'msess', 'gone', '-n', envA.namespace, '--timeout=60s']);
  expect((await installState(envA, gwA)).authKeys.some((key) => key.startsWith('gone.'))).toBe(true);

  archivePath = join(envA.dir, '..', `switchboard-backup-${process.pid}.json`);
  await switchboard(gwA, 'backup', archivePath);
  archive = JSON.parse(readFileSync(archivePath, 'utf8'));
  await runScheduledBackup(gwA);

  // The install goes away whole: API server and its namespace, NATS and its data, every pod.
  await envA.stop();
  envA = undefined;

  envB = await startClusterEnvironment({ namespace: 'switchboard-e2e-backup-b', engineEnv: engineEnv() });
  await envB.startOperator('operator-b');
  await envB.waitForOperatorLeader('operator-b');
  statuses = await new WebhookReceiver().start();
  gwB = await envB.startGateway({ globalWebhook: { url: statuses.url, events: ['session.status'] } });
}, 600_000);

afterAll(async () => {
  await envA?.stop();
  await envB?.stop();
  await statuses?.stop();
  await fake?.close();
  if (archivePath) rmSync(archivePath, { force: true });
});

describe('the archive', () => {
  it('is one versioned file: sessions, hashed keys, Secret references, and pairings only as ciphertext', () => {
    expect(archive).toMatchObject({ format: 'switchboard-backup', version: 1, namespace: 'switchboard-e2e-backup-a' });
    expect(archive.sessions.map((s: any) => s.name).sort()).toEqual(['nora', 'sandy']);
    const nora = archive.sessions.find((s: any) => s.name === 'nora');
    expect(nora.secretRefs).toHaveLength(1);
    expect(archive.apiKeys).toHaveLength(3);
    expect(archive.pairings).toMatchObject({ cipher: 'aes-256-gcm', kdf: 'scrypt' });
    const text = readFileSync(archivePath, 'utf8');
    // Neither a webhook secret, nor a key's secret, nor anything of the pairings in the clear.
    for (const secret of [HMAC_KEY, keys.all, keys.nora, keys.control, 'noiseKey', 'signedIdentityKey', 'nora.']) {
      expect(text).not.toContain(secret);
    }
  });
});

describe('the chart’s scheduled backup script', () => {
  it('keeps the newest archive on the volume and PUTs each to the URL, its credentials as Basic authentication', async () => {
    expect(scheduled.files).toHaveLength(1);
    expect(scheduled.files[0]).toMatch(/^switchboard-\d{4}-.*\.json$/);
    expect(scheduled.uploads).toHaveLength(2);
    for (const upload of scheduled.uploads) {
      expect(upload.path).toMatch(/^\/archives\/switchboard-.*\.json$/);
      expect(upload.authorization).toBe(`Basic ${Buffer.from('backup:s3cret').toString('base64')}`);
      expect(upload.body).toMatchObject({ format: 'switchboard-backup', version: 1 });
      expect(upload.body.sessions.map((s: any) => s.name).sort()).toEqual(['nora', 'sandy']);
      // The Secret's trailing newline is not part of the passphrase: the one a restore is given opens it.
      await expect(decryptPairings(upload.body.pairings, PASSPHRASE)).resolves.toBeInstanceOf(Buffer);
    }
  });
});

describe('a restore refuses a bad archive and changes nothing', () => {
  const refused = async (body: unknown, status: number, field: RegExp) => {
    const res = await gwB.api('POST', '/api/admin/restore', body);
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(JSON.stringify(res.body)).toMatch(field);
    expect(await installState(envB!, gwB)).toEqual({ sessions: [], authKeys: [] });
  };

  it('a version it does not know: 400 naming archive.version', async () => {
    await refused({ archive: { ...archive, version: 2 }, passphrase: PASSPHRASE }, 400, /archive\.version/);
  });

  it('not an archive at all: 400 naming archive.format', async () => {
    await refused({ archive: { ...archive, format: 'tarball' }, passphrase: PASSPHRASE }, 400, /archive\.format/);
  });

  it('the wrong passphrase: 422 naming the passphrase', async () => {
    await refused({ archive, passphrase: 'not the passphrase at all' }, 422, /passphrase/);
  });

  it('a changed ciphertext: 422, the pairings do not open', async () => {
    const data = Buffer.from(archive.pairings.data, 'base64');
    data[0] = data[0]! ^ 0xff;
    await refused(
      { archive: { ...archive, pairings: { ...archive.pairings, data: data.toString('base64') } }, passphrase: PASSPHRASE },
      422,
      /passphrase/,
    );
  });

  it('pairings of a session the archive does not hold: 422 naming archive.pairings', async () => {
    const sessions = archive.sessions.filter((s: any) => s.name !== 'nora');
    await refused({ archive: { ...archive, sessions }, passphrase: PASSPHRASE }, 422, /archive\.pairings.*nora/);
  });

  it('a session listed twice: 422 naming archive.sessions', async () => {
    await refused(
      { archive: { ...archive, sessions: [...archive.sessions, archive.sessions[0]] }, passphrase: PASSPHRASE },
      422,
      /archive\.sessions/,
    );
  });

  it('a short passphrase for a backup: 400 naming passphrase', async () => {
    const res = await gwB.api('POST', '/api/admin/backup', { passphrase: 'short' });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toMatch(/passphrase/);
  });

  it('the OpenAPI document of a cluster gateway describes both routes, their bodies and refusals', async () => {
    const doc = (await gwB.api('GET', '/docs/openapi.json')).body;
    expect(Object.keys(doc.paths['/api/admin/backup'].post.responses)).toEqual(expect.arrayContaining(['200', '400', '409']));
    expect(Object.keys(doc.paths['/api/admin/restore'].post.responses)).toEqual(expect.arrayContaining(['200', '400', '409', '422']));
    expect(JSON.stringify(doc.paths['/api/admin/restore'].post.requestBody)).toMatch(/RestoreRequest|archive/);
  });

  it('only the admin key: a general key gets 403', async () => {
    const other = (await gwB.api('POST', '/api/keys', {})).body;
    expect((await gwB.api('POST', '/api/admin/restore', { archive, passphrase: PASSPHRASE }, other.key)).status).toBe(403);
    expect((await gwB.api('DELETE', `/api/keys/${other.id as string}`)).status).toBe(200);
    expect(await installState(envB!, gwB)).toEqual({ sessions: [], authKeys: [] });
  });
});

describe('restore into a fresh install', () => {
  it('brings every session back WORKING with no new QR, and the keys still open what they opened', async () => {
    const { stdout } = await switchboard(gwB, 'restore', archivePath);
    expect(stdout).toMatch(/restored 2 sessions/);
    // The webhook Secret of nora was the old namespace's: named, not carried.
    expect(stdout).toMatch(/missing: Secret \S+ key /);

    const restored = await installState(envB!, gwB);
    expect(restored.sessions.sort()).toEqual(['nora', 'sandy']);
    expect(restored.authKeys.filter((key) => !key.startsWith('nora.') && !key.startsWith('sandy.'))).toEqual([]);
    await waitForStatus(gwB, 'sandy', 'WORKING', 60_000);
    await waitForStatus(gwB, 'nora', 'WORKING', 90_000);
    const seen = () => statuses.received.map((hook) => hook.body);
    await waitFor(
      () => ['sandy', 'nora'].every((s) => seen().some((e) => e.session === s && e.payload.status === 'WORKING')),
      'WORKING on the webhook',
    );
    expect(seen().filter((e) => e.payload.status === 'SCAN_QR_CODE')).toEqual([]);
    expect(phone.isConnected).toBe(true);
    expect((await gwB.api('GET', '/api/sessions/nora/me')).body).toMatchObject({ id: phone.contactId, pushName: 'Nora' });

    expect((await gwB.api('GET', '/api/sessions', undefined, keys.all)).status).toBe(200);
    // Keys limited to nora were bound to its old resource; they follow it to the restored one.
    expect((await gwB.api('GET', '/api/sessions/nora', undefined, keys.nora)).status).toBe(200);
    expect((await gwB.api('GET', '/api/sessions/nora', undefined, keys.control)).status).toBe(200);
    expect((await gwB.api('GET', '/api/sessions/sandy', undefined, keys.nora)).status).toBe(403);
  });

  it('a second restore of the same archive: 409 naming the sessions already here', async () => {
    const before = await installState(envB!, gwB);
    const res = await gwB.api('POST', '/api/admin/restore', { archive, passphrase: PASSPHRASE });
    expect(res.status).toBe(409);
    expect(res.body.details.sessions.sort()).toEqual(['nora', 'sandy']);
    expect(await installState(envB!, gwB)).toEqual(before);
  });

  it('the CLI says what was wrong and exits non-zero', async () => {
    const bad = join(envB!.dir, 'not-an-archive.json');
    writeFileSync(bad, JSON.stringify({ format: 'switchboard-backup', version: 1 }));
    const failed = await switchboard(gwB, 'restore', bad).catch((error: unknown) => error as { code: number; stderr: string });
    expect(failed).toMatchObject({ code: 1 });
    expect((failed as { stderr: string }).stderr).toMatch(/400 from \/api\/admin\/restore: .*archive/);
  });
});
