import type { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import type { WebhookConfig } from '@switchboard/protocol';
import { pino } from 'pino';
import { eventLogSchema, SqliteEventLog } from '../../../src/local/sqlite-event-log.js';
import { WriteBatch } from '../../../src/local/store/write-batch.js';
import { DeliveredRows } from '../../../src/local/webhooks/delivered-rows.js';
import { WebhookOutbox } from '../../../src/local/webhooks/outbox.js';
import { webhookTargets } from '../../../src/webhooks/webhook-targets.js';
import { closedAfterEach, makeEvent } from '../../webhooks/support.js';

const { fixture } = closedAfterEach();
const hook = (url: string, extra: Partial<WebhookConfig> = {}): WebhookConfig => ({ url, events: ['*'], ...extra });
const FAR = Number.MAX_SAFE_INTEGER;

/** Rows of a table, counted with the real SQLite. */
function count(db: DatabaseSync, table: string): number {
  return (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
}

/**
 * `db` with every statement run and every COMMIT counted by its SQL: the statements an outbox on
 * it makes, counted on the real SQLite rather than timed.
 */
function countingDb(db: DatabaseSync): { db: DatabaseSync; runs: string[]; commits: () => number } {
  const runs: string[] = [];
  let commits = 0;
  const proxy = new Proxy(db, {
    get(target, property) {
      if (property === 'prepare') {
        return (sql: string) => {
          const statement = target.prepare(sql);
          return new Proxy(statement, {
            get(inner, name) {
              const value = Reflect.get(inner, name, inner) as unknown;
              if (name !== 'run' || typeof value !== 'function') return typeof value === 'function' ? value.bind(inner) : value;
              return (...args: unknown[]) => {
                runs.push(sql.replace(/\s+/g, ' ').trim());
                return (value as (...a: unknown[]) => unknown).apply(inner, args);
              };
            },
          });
        };
      }
      if (property === 'exec') {
        return (sql: string) => {
          if (sql === 'COMMIT') commits++;
          return target.exec(sql);
        };
      }
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { db: proxy, runs, commits: () => commits };
}

describe('webhook queues: the event log and a cursor per (session, webhook)', () => {
  it('costs one log row per event however many webhooks want it, and offers each queue its events in order', () => {
    const f = fixture();
    const first = makeEvent('alpha', 0);
    f.enqueue(first, [hook('http://a.test/'), hook('http://b.test/')]);
    f.enqueue(makeEvent('alpha', 1), [hook('http://a.test/')]);
    f.enqueue(makeEvent('beta', 0), [hook('http://a.test/')]);

    expect(count(f.db, 'webhook_event_log')).toBe(3);
    expect(count(f.db, 'webhook_deliveries')).toBe(0);
    expect(count(f.db, 'webhook_cursors')).toBe(3);
    // A queue sends what its webhook, as the session has it now, wants of the log: b wants
    // every event, so it gets alpha's second one too.
    expect(f.outbox.pendingCount()).toBe(5);
    const rows = f.pendingRows();
    const seqs = (url: string, session = 'alpha') =>
      rows.filter((r) => r.target.url === url && r.session === session).map((r) => JSON.parse(r.body).payload.seq);
    expect(seqs('http://a.test/')).toEqual([0, 1]);
    expect(seqs('http://b.test/')).toEqual([0, 1]);
    expect(seqs('http://a.test/', 'beta')).toEqual([0]);
    const [head] = rows;
    expect(head!.body).toBe(first.json);
    expect(head!.attempts).toBe(0);
  });

  it('treats two webhooks of one session with the same url as two queues', () => {
    const f = fixture();
    f.enqueue(makeEvent('alpha', 0), [hook('http://a.test/'), hook('http://a.test/', { hmac: { key: 'k' } })]);
    expect(new Set(f.outbox.takeDue(FAR, 10)).size).toBe(2);
  });

  it('leaves out excluded queues and heads waiting for a retry, and respects the limit', () => {
    const f = fixture();
    f.enqueue(makeEvent('alpha', 0), [hook('http://a.test/'), hook('http://b.test/'), hook('http://c.test/')]);
    const keys = f.outbox.takeDue(FAR, 10);
    expect(keys).toHaveLength(3);
    expect(f.outbox.takeDue(FAR, 2)).toHaveLength(2);
    const [a, b, c] = keys;
    expect(f.outbox.takeDue(FAR, 10, [a!])).toEqual([b, c]);

    const [head] = f.outbox.headOf(b!, 1)!;
    f.outbox.markFailed(head!, 'http_5xx', 5_000_000_000_000);
    expect(f.outbox.takeDue(Date.now(), 10).sort()).toEqual([a, c].sort());
    expect(f.outbox.nextDueAt([a!, c!])).toBe(5_000_000_000_000);
    expect(f.outbox.takeDue(FAR, 10)).toContain(b);
  });

  it('holds later events of a queue behind a head that waits for its retry, the head an entry of its own', () => {
    const f = fixture();
    f.enqueue(makeEvent('alpha', 0), [hook('http://a.test/')]);
    f.enqueue(makeEvent('alpha', 1), [hook('http://a.test/')]);
    const [key] = f.outbox.takeDue(FAR, 10);
    const [head] = f.outbox.headOf(key!, 1)!;
    f.outbox.markFailed(head!, 'http_5xx', Date.now() + 60_000);
    expect(count(f.db, 'webhook_deliveries')).toBe(1);
    expect(f.outbox.takeDue(Date.now(), 10)).toEqual([]);
    const rows = f.outbox.headOf(key!, 10)!;
    expect(rows.map((r) => [r.eventId, r.attempts, r.entryId !== null])).toEqual([
      [head!.eventId, 1, true],
      [expect.any(String), 0, false],
    ]);
    expect(f.outbox.pendingCount()).toBe(2);
  });

  it('moves the cursor past delivered events, deletes delivered entries, and keeps dead ones, listed per session', () => {
    const f = fixture();
    f.enqueue(makeEvent('alpha', 0), [hook('http://a.test/'), hook('http://b.test/', { hmac: { key: 'secret' } })]);
    const rows = f.pendingRows();
    const a = rows.find((r) => r.target.url === 'http://a.test/');
    const b = rows.find((r) => r.target.url === 'http://b.test/');
    f.outbox.markDelivered([a!]);
    f.outbox.markDead(b!, 'refused');

    expect(f.outbox.pendingCount()).toBe(0);
    expect(f.outbox.takeDue(FAR, 10)).toEqual([]);
    const dead = f.outbox.deadFor('alpha');
    expect(dead).toEqual([
      {
        id: expect.any(Number),
        eventId: b!.eventId,
        event: 'message',
        session: 'alpha',
        url: 'http://b.test/',
        attempts: 1,
        lastError: 'refused',
        createdAt: expect.any(Number),
        deadAt: expect.any(Number),
      },
    ]);
    expect(dead[0]!.deadAt).toBeGreaterThanOrEqual(dead[0]!.createdAt);
    expect(JSON.stringify(dead)).not.toContain('secret');
  });

  it('lists a delivery that died with the details an older version stored by their coarse reason', () => {
    const f = fixture();
    const details = ['ECONNREFUSED', 'ENOTFOUND', 'HTTP 302', 'HTTP 403', 'HTTP 502', 'timeout after 10000 ms', 'UND_ERR_CONNECT_TIMEOUT'];
    f.enqueue(
      makeEvent('alpha', 0),
      details.map((_, i) => hook(`http://h${i}.test/`)),
    );
    for (const row of f.pendingRows()) f.outbox.markDead(row, 'refused');
    for (const dead of f.outbox.deadFor('alpha')) {
      const i = Number(/h(\d)/.exec(dead.url)![1]);
      f.db.prepare('UPDATE webhook_deliveries SET last_error = ?, id = ? WHERE id = ?').run(details[i]!, 100 + i, dead.id);
    }
    expect(f.outbox.deadFor('alpha').map((dead) => dead.lastError)).toEqual([
      'refused',
      'refused',
      'refused',
      'http_4xx',
      'http_5xx',
      'timeout',
      'timeout',
    ]);
  });

  it('writes nothing for an event without targets', () => {
    const f = fixture();
    f.enqueue(makeEvent('alpha', 0), []);
    expect(f.outbox.pendingCount()).toBe(0);
    expect(count(f.db, 'webhook_event_log')).toBe(0);
  });

  it('starts a webhook added later at the log’s end, and drops the queue of a webhook removed', () => {
    const f = fixture();
    const a = hook('http://a.test/');
    f.enqueue(makeEvent('alpha', 0), [a]);
    f.enqueue(makeEvent('alpha', 1), [a]);
    const later = hook('http://later.test/');
    const third = makeEvent('alpha', 2);
    f.enqueue(third, [a, later]);
    const laterKey = f.outbox.takeDue(FAR, 10).find((key) => key.endsWith(webhookTargets([a, later], null)[1]!.id))!;
    expect(f.outbox.headOf(laterKey, 10)!.map((r) => r.eventId)).toEqual([third.envelope.id]);

    // Removed from the session: its queue, cursor and pending entries go, its dead letters stay.
    const [head] = f.outbox.headOf(laterKey, 1)!;
    f.outbox.markDead(head!, 'refused');
    f.enqueue(makeEvent('alpha', 3), [later]);
    f.webhooks.set('alpha', [a]);
    expect(f.outbox.headOf(laterKey, 10)).toBeNull();
    expect(count(f.db, 'webhook_cursors')).toBe(1);
    expect(f.outbox.deadFor('alpha')).toHaveLength(1);
    expect(f.outbox.pendingCount()).toBe(4);
  });

  it('skips the events a queue’s webhook does not want, and moves its cursor past them', () => {
    const f = fixture();
    const messages = hook('http://messages.test/', { events: ['message'] });
    const all = hook('http://all.test/');
    f.enqueue(makeEvent('alpha', 0, 'message'), [messages, all]);
    f.enqueue(makeEvent('alpha', 1, 'session.status'), [all]);
    f.enqueue(makeEvent('alpha', 2, 'session.status'), [all]);
    const [key] = f.outbox.takeDue(FAR, 10).filter((k) => k.endsWith(webhookTargets([messages], null)[0]!.id));
    const [only] = f.outbox.headOf(key!, 10)!;
    expect(JSON.parse(only!.body).event).toBe('message');
    f.outbox.markDelivered([only!]);
    expect(f.outbox.pendingCount()).toBe(3);
    // Nothing more it wants: found once more by the full look, then its cursor is at the log's end.
    expect(f.outbox.takeDue(FAR, 10)).toContain(key);
    expect(f.outbox.headOf(key!, 10)).toEqual([]);
    expect(f.outbox.takeDue(FAR, 10)).not.toContain(key);
  });

  it('advances cursors in one UPDATE per queue, in the group commit that happens anyway', () => {
    const f = fixture();
    const counted = countingDb(f.db);
    const outbox = new WebhookOutbox(counted.db, { targetOf: (session) => f.webhooks.get(session)?.[0] ?? null });
    const writes = new WriteBatch(counted.db, (error) => {
      throw error;
    });
    const cleared: number[] = [];
    const delivered = new DeliveredRows({
      outbox,
      clearEveryMs: 60_000,
      writes,
      cleared: (rows) => cleared.push(rows.length),
      notCleared: (_, error) => {
        throw error;
      },
    });
    const a = hook('http://a.test/');
    const b = hook('http://b.test/');
    f.webhooks.set('alpha', [a, b]);
    const targets = webhookTargets([a, b], null);
    const rows = [0, 1, 2, 3, 4].flatMap((seq) => outbox.enqueue(makeEvent('alpha', seq), targets));
    expect(rows).toHaveLength(10);
    counted.runs.length = 0;
    const commitsBefore = counted.commits();

    for (const row of rows) delivered.add({ row, latencyMs: 1 });
    // The next event's group commit takes the cursor updates along: no commit of their own.
    writes.add(() => outbox.enqueue(makeEvent('alpha', 5), targets));
    writes.flush();

    expect(counted.commits() - commitsBefore).toBe(1);
    const updates = counted.runs.filter((sql) => sql.startsWith('UPDATE webhook_cursors'));
    expect(updates).toHaveLength(2);
    expect(counted.runs.filter((sql) => sql.startsWith('INSERT OR IGNORE INTO webhook_event_log'))).toHaveLength(1);
    expect(counted.runs.filter((sql) => sql.startsWith('INSERT OR IGNORE INTO webhook_cursors'))).toHaveLength(0);
    expect(counted.runs).toHaveLength(3);
    expect(cleared).toEqual([10]);
    expect(outbox.pendingCount()).toBe(2);
  });

  it('prunes past retention only the events every cursor of the session has passed', async () => {
    const f = fixture();
    let now = Date.now();
    f.db.exec(eventLogSchema.ddl);
    const log = new SqliteEventLog({ db: f.db, queued: f.db, log: pino({ level: 'silent' }), retentionMs: 100, now: () => now });
    const [a, b] = [hook('http://a.test/'), hook('http://b.test/')];
    const events = [0, 1, 2].map((seq) => makeEvent('alpha', seq));
    for (const event of events) f.enqueue(event, [a, b]);
    f.enqueue(makeEvent('beta', 0), [a]);
    const [alphaA, alphaB] = f.outbox.takeDue(FAR, 10).filter((key) => key.startsWith('alpha '));
    // a is done with two of alpha's events, b with one: the slower cursor decides.
    f.outbox.markDelivered(f.outbox.headOf(alphaA!, 2)!);
    f.outbox.markDelivered(f.outbox.headOf(alphaB!, 1)!);
    // beta's queue is done with its event too.
    const [betaKey] = f.outbox.takeDue(FAR, 10).filter((key) => key.startsWith('beta '));
    f.outbox.markDelivered(f.outbox.headOf(betaKey!, 1)!);

    // Every event is past retention now (the outbox stamped them with the real clock).
    now = Date.now() + 10_000;
    log.start();
    await expect.poll(() => count(f.db, 'webhook_event_log')).toBe(2);
    log.stop();
    const left = f.db.prepare('SELECT id FROM webhook_event_log ORDER BY id').all() as { id: string }[];
    expect(left.map((row) => row.id)).toEqual([events[1]!.envelope.id, events[2]!.envelope.id]);
    expect(f.outbox.headOf(alphaB!, 10)!.map((row) => row.eventId)).toEqual(left.map((row) => row.id));
  });

  it('forgets a deleted session: its cursors, pending entries and dead letters', () => {
    const f = fixture();
    f.enqueue(makeEvent('alpha', 0), [hook('http://a.test/'), hook('http://b.test/')]);
    f.enqueue(makeEvent('beta', 0), [hook('http://a.test/')]);
    const [a, b] = f.pendingRows();
    f.outbox.markFailed(a!, 'http_5xx', FAR);
    f.outbox.markDead(b!, 'refused');
    expect(f.outbox.forgetSession('alpha')).toBe(2);
    expect(f.db.prepare('SELECT queue FROM webhook_cursors').all()).toEqual([{ queue: expect.stringMatching(/^beta /) }]);
    expect(f.outbox.deadFor('alpha')).toEqual([]);
  });

  it('takes over an older version’s pending rows, keyed by config, into the queue of the webhook of that url', () => {
    const f = fixture();
    const a = hook('http://a.test/', { hmac: { key: 'k' } });
    const global = hook('http://global.test/');
    const [event, forGlobal] = [makeEvent('alpha', 0), makeEvent('alpha', 1)];
    const insert = f.db.prepare(
      `INSERT INTO webhook_deliveries (event_id, session, target_key, target, body, next_attempt_at, created_at)
       VALUES (?, 'alpha', ?, ?, ?, 0, 0)`,
    );
    insert.run(event.envelope.id, 'alpha 0123456789ab http://a.test/', JSON.stringify(a), event.json);
    insert.run(forGlobal.envelope.id, 'alpha ba9876543210 http://global.test/', JSON.stringify(global), forGlobal.json);
    const targets = webhookTargets([a], global);
    const upgraded = new WebhookOutbox(f.db, { targetOf: (_, id) => targets.find((target) => target.id === id)?.config ?? null });
    upgraded.adoptOlderRows();
    const keys = upgraded.takeDue(FAR, 10);
    expect(keys.sort()).toEqual([`alpha ${targets[0]!.id}`, 'alpha global'].sort());
    expect(upgraded.headOf(`alpha ${targets[0]!.id}`, 10)!.map((row) => [row.eventId, row.body, row.target])).toEqual([
      [event.envelope.id, event.json, a],
    ]);
    expect(upgraded.headOf('alpha global', 10)!.map((row) => [row.eventId, row.target])).toEqual([[forGlobal.envelope.id, global]]);
  });
});
