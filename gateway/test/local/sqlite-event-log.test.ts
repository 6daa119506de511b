import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEnvelope } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { eventLogSchema, SqliteEventLog } from '../../src/local/sqlite-event-log.js';
import { BackgroundWriter } from '../../src/local/store/background-writer.js';
import { databaseFile, HISTORY_FILE, openDatabase } from '../../src/local/store/database.js';
import { startGateway, type TestGateway, workingSession } from '../support/gateway.js';
import { makeEvent } from '../webhooks/support.js';

let gw: TestGateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

const FROM = '15557654321@c.us';

describe('event log: catching up after an outage (our addition)', () => {
  it('returns the session’s events after an id, oldest first, as webhooks get them, page by page', async () => {
    gw = await startGateway();
    await workingSession(gw, 'log1');
    await workingSession(gw, 'log2');
    for (const body of ['one', 'two', 'three']) {
      await gw.api('POST', '/api/log1/sandbox/simulate', { kind: 'message', from: FROM, body });
    }

    // The log commits its rows every 20 ms.
    const all = await waitFor(async () => {
      const page = (await gw!.api('GET', '/api/log1/event-log?limit=1000')).body as any[];
      return page.filter((e) => e.event === 'message').length === 3 && page;
    }, 'the three messages in the log');
    expect(all.length).toBeGreaterThanOrEqual(9);
    for (const envelope of all) expect(() => parseEnvelope(envelope)).not.toThrow();
    expect(new Set(all.map((e) => e.session))).toEqual(new Set(['log1']));
    const ids = all.map((e) => e.id);
    expect(ids).toEqual([...ids].sort());
    expect(new Set(ids).size).toBe(ids.length);
    expect(all.filter((e) => e.event === 'message').map((e) => e.payload.body)).toEqual(['one', 'two', 'three']);

    // Paging from an id: each page starts right after the last id of the one before.
    const pages: any[] = [];
    let since = all[2].id;
    for (;;) {
      const page = (await gw.api('GET', `/api/log1/event-log?since=${since}&limit=2`)).body as any[];
      if (page.length === 0) break;
      expect(page.length).toBeLessThanOrEqual(2);
      pages.push(...page);
      since = page.at(-1).id;
    }
    expect(pages).toEqual(all.slice(3));
  });

  it('refuses a malformed id or limit with 400 naming it, and an unknown session with 404', async () => {
    gw = await startGateway();
    await gw.api('POST', '/api/sessions', { name: 'log3', start: false });
    const bad = await gw.api('GET', '/api/log3/event-log?since=not-an-id');
    expect(bad.status).toBe(400);
    expect(bad.body.details[0].path).toContain('since');
    expect((await gw.api('GET', '/api/log3/event-log?limit=5000')).status).toBe(400);
    expect((await gw.api('GET', '/api/nobody/event-log')).status).toBe(404);
    expect((await gw.api('GET', '/api/log3/event-log')).body).toEqual([]);
  });

  it('a read sees every event published before it, committed or still queued in the writer thread', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-event-log-'));
    const db = openDatabase(dir, [eventLogSchema], HISTORY_FILE);
    // A commit a minute away: only the read can have sent the row to be committed.
    const errors: string[] = [];
    const writes = new BackgroundWriter({ file: databaseFile(dir, HISTORY_FILE), delayMs: 60_000, onError: (message) => errors.push(message) });
    const log = new SqliteEventLog({ db, log: pino({ level: 'silent' }), writes });
    const committed = () => (db.prepare('SELECT count(*) AS n FROM event_log').get() as { n: number }).n;
    try {
      log.start();
      const first = makeEvent('alpha', 1);
      log.append(first);
      expect(committed()).toBe(0);
      expect(await log.since('alpha', undefined, 10)).toEqual([first.json]);
      expect(committed()).toBe(1);
      const second = makeEvent('alpha', 2);
      log.append(second);
      expect(await log.since('alpha', first.envelope.id, 10)).toEqual([second.json]);
      expect(errors).toEqual([]);
    } finally {
      log.stop();
      await writes.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('forgets events older than the retention', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-event-log-'));
    const db = openDatabase(dir, [eventLogSchema]);
    let now = 1_000_000;
    const log = new SqliteEventLog({ db, log: pino({ level: 'silent' }), retentionMs: 1_000, pruneEveryMs: 20, now: () => now });
    try {
      log.start();
      const old = makeEvent('alpha', 1);
      log.append(old);
      now += 900;
      const recent = makeEvent('alpha', 2);
      log.append(recent);
      expect(await log.since('alpha', undefined, 10)).toEqual([old.json, recent.json]);
      now += 200;
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect(await log.since('alpha', undefined, 10)).toEqual([recent.json]);
    } finally {
      log.stop();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
