import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { waitFor, WsClient } from '@switchboard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from './support/gateway.js';

let gw: TestGateway | null = null;
afterEach(async () => {
  await gw?.close();
  gw = null;
});

const sha512 = (value: string) => `sha512:${createHash('sha512').update(value).digest('hex')}`;

describe('local mode: API keys in SQLite', () => {
  it('stores only the hash of a created key, never the secret', async () => {
    gw = await startGateway();
    await gw.api('POST', '/api/sessions', { name: 's1', start: false });
    const secrets: string[] = [];
    for (const [path, body] of [
      ['/api/keys', {}],
      ['/api/keys/media', { session: 's1' }],
      ['/api/keys/control', { session: 's1' }],
    ] as const) {
      const res = await gw.api('POST', path, body);
      expect(res.status).toBe(201);
      secrets.push(res.body.key);
    }
    const dataDir = gw.dataDir;
    await gw.close();
    gw = null;

    const db = new DatabaseSync(join(dataDir, 'switchboard.db'));
    const hashes = (db.prepare(`SELECT hash FROM api_keys`).all() as { hash: string }[]).map((row) => row.hash);
    db.close();
    for (const secret of secrets) expect(hashes).toContain(sha512(secret));
    for (const file of readdirSync(dataDir).filter((f) => f.startsWith('switchboard.db'))) {
      const bytes = readFileSync(join(dataDir, file));
      for (const secret of secrets) expect(bytes.includes(secret)).toBe(false);
    }
  });

  it('keys, their settings and the one-per-session rule survive a restart', async () => {
    gw = await startGateway();
    await gw.api('POST', '/api/sessions', { name: 's1', start: false });
    const general = (await gw.api('POST', '/api/keys', { session: 's1', isActive: false, actions: { read: true } })).body;
    const media = (await gw.api('POST', '/api/keys/media', { session: 's1' })).body;
    const dataDir = gw.dataDir;
    await gw.close();

    gw = await startGateway({ dataDir });
    const list = (await gw.api('GET', '/api/keys')).body;
    expect(list).toContainEqual({ id: general.id, isActive: false, isAdmin: false, session: 's1', actions: { read: true }, kind: 'general' });
    expect((await gw.api('GET', '/api/sessions/s1', undefined, general.key)).status).toBe(401);
    expect((await gw.api('GET', '/api/sessions', undefined, media.key)).status).toBe(403);
    const again = await gw.api('POST', '/api/keys/media', { session: 's1' });
    expect(again.body.id).toBe(media.id);
    expect(again.body).not.toHaveProperty('key');
  });

  it('a key limited to a session whose delete did not reach its keys does not open a later session of the name', async () => {
    gw = await startGateway();
    await gw.api('POST', '/api/sessions', { name: 'reborn', start: false });
    const control = (await gw.api('POST', '/api/keys/control', { session: 'reborn' })).body;
    const general = (await gw.api('POST', '/api/keys', { session: 'reborn' })).body;
    const legacy = (await gw.api('POST', '/api/keys', { session: 'reborn' })).body;
    const dataDir = gw.dataDir;
    await gw.close();
    // The session row went, its keys did not (a crash between the two), and one key was stored
    // before keys kept their session's incarnation.
    const db = new DatabaseSync(join(dataDir, 'switchboard.db'));
    db.prepare(`DELETE FROM sessions WHERE name = 'reborn'`).run();
    db.prepare(`UPDATE api_keys SET incarnation = NULL WHERE id = ?`).run(legacy.id);
    db.close();

    gw = await startGateway({ dataDir });
    expect((await gw.api('POST', '/api/sessions', { name: 'reborn', start: false })).status).toBe(201);
    for (const key of [control.key, general.key]) {
      const refused = await gw.api('GET', '/api/sessions/reborn', undefined, key);
      expect(refused.status).toBe(403);
      expect(refused.body.message).toContain("earlier session named 'reborn'");
    }
    expect((await gw.api('GET', '/api/sessions', undefined, general.key)).body).toEqual([]);
    const socket = await WsClient.connect(gw.url, `x-api-key=${general.key}&session=reborn`);
    const closed = await waitFor(() => socket.closed, 'the /ws connection to be refused');
    expect(closed).toEqual({ code: 1008, reason: "this key was limited to an earlier session named 'reborn', which was deleted" });
    expect((await gw.api('GET', '/api/sessions/reborn', undefined, legacy.key)).status).toBe(200);
    // The incarnation is kept, never answered.
    for (const key of (await gw.api('GET', '/api/keys')).body) expect(key).not.toHaveProperty('incarnation');
  });

  it('opens a data dir made before keys had settings: the generated admin key keeps working', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-test-'));
    const db = new DatabaseSync(join(dataDir, 'switchboard.db'));
    db.exec(`CREATE TABLE api_keys (
      id TEXT PRIMARY KEY, hash TEXT NOT NULL UNIQUE,
      kind TEXT NOT NULL CHECK (kind IN ('admin', 'general', 'media', 'control')),
      session TEXT, created_at INTEGER NOT NULL)`);
    db.prepare(`INSERT INTO api_keys VALUES ('admin', ?, 'admin', NULL, 1)`).run(sha512('earlier-generated-key'));
    db.close();

    gw = await startGateway({ dataDir, apiKey: undefined });
    expect(gw.gateway.adminKey.generated).toBeUndefined();
    expect((await gw.api('GET', '/api/keys', undefined, 'earlier-generated-key')).body).toEqual([]);
    const made = await gw.api('POST', '/api/keys', {}, 'earlier-generated-key');
    expect(made.status).toBe(201);
    expect((await gw.api('GET', '/api/sessions', undefined, made.body.key)).status).toBe(200);
  });
});
