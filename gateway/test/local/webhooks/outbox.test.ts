import { describe, expect, it } from 'vitest';
import type { WebhookConfig } from '@switchboard/protocol';
import { closedAfterEach, makeEvent } from '../../webhooks/support.js';

const { fixture } = closedAfterEach();
const hook = (url: string, extra: Partial<WebhookConfig> = {}): WebhookConfig => ({ url, events: ['*'], ...extra });
const FAR = Number.MAX_SAFE_INTEGER;

describe('webhook outbox queues', () => {
  it('writes one row per target and offers only the oldest pending row of each (session, webhook)', () => {
    const { outbox } = fixture();
    const first = makeEvent('alpha', 0);
    outbox.enqueue(first, [hook('http://a.test/'), hook('http://b.test/')]);
    outbox.enqueue(makeEvent('alpha', 1), [hook('http://a.test/')]);
    outbox.enqueue(makeEvent('beta', 0), [hook('http://a.test/')]);

    expect(outbox.pendingCount()).toBe(4);
    const due = outbox.takeDue(FAR, 10);
    expect(due.map((r) => [r.session, r.target.url, r.eventId])).toEqual([
      ['alpha', 'http://a.test/', first.envelope.id],
      ['alpha', 'http://b.test/', first.envelope.id],
      ['beta', 'http://a.test/', expect.any(String)],
    ]);
    expect(due[0]!.body).toBe(first.json);
    expect(due[0]!.attempts).toBe(0);
  });

  it('treats the same url with another config as another queue', () => {
    const { outbox } = fixture();
    outbox.enqueue(makeEvent('alpha', 0), [hook('http://a.test/'), hook('http://a.test/', { hmac: { key: 'k' } })]);
    const keys = outbox.takeDue(FAR, 10).map((r) => r.targetKey);
    expect(new Set(keys).size).toBe(2);
  });

  it('leaves out excluded keys, rows not yet due, and respects the limit', () => {
    const { outbox } = fixture();
    outbox.enqueue(makeEvent('alpha', 0), [hook('http://a.test/'), hook('http://b.test/'), hook('http://c.test/')]);
    const [a, b, c] = outbox.takeDue(FAR, 10);
    expect(outbox.takeDue(FAR, 2)).toHaveLength(2);
    expect(outbox.takeDue(FAR, 10, [a!.targetKey]).map((r) => r.target.url)).toEqual(['http://b.test/', 'http://c.test/']);

    outbox.markFailed(b!.id, 'http_5xx', 5_000_000_000_000);
    expect(outbox.takeDue(Date.now(), 10).map((r) => r.target.url)).toEqual(['http://a.test/', 'http://c.test/']);
    expect(outbox.nextDueAt([a!.targetKey, c!.targetKey])).toBe(5_000_000_000_000);
    expect(outbox.nextDueAt()).toBeLessThanOrEqual(Date.now());
  });

  it('holds later rows of a queue behind a head that waits for its retry', () => {
    const { outbox } = fixture();
    outbox.enqueue(makeEvent('alpha', 0), [hook('http://a.test/')]);
    outbox.enqueue(makeEvent('alpha', 1), [hook('http://a.test/')]);
    const [head] = outbox.takeDue(FAR, 10);
    outbox.markFailed(head!.id, 'http_5xx', Date.now() + 60_000);
    expect(outbox.takeDue(Date.now(), 10)).toEqual([]);
    expect(outbox.takeDue(FAR, 10)).toMatchObject([{ id: head!.id, attempts: 1 }]);
  });

  it('deletes delivered rows and keeps dead ones, listed per session', () => {
    const { outbox } = fixture();
    outbox.enqueue(makeEvent('alpha', 0), [hook('http://a.test/'), hook('http://b.test/', { hmac: { key: 'secret' } })]);
    const [a, b] = outbox.takeDue(FAR, 10);
    outbox.markDelivered(a!.id);
    outbox.markDead(b!.id, 'refused');

    expect(outbox.pendingCount()).toBe(0);
    expect(outbox.takeDue(FAR, 10)).toEqual([]);
    const dead = outbox.deadFor('alpha');
    expect(dead).toEqual([
      {
        id: b!.id,
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
    const { outbox, db } = fixture();
    const details = ['ECONNREFUSED', 'ENOTFOUND', 'HTTP 302', 'HTTP 403', 'HTTP 502', 'timeout after 10000 ms', 'UND_ERR_CONNECT_TIMEOUT'];
    outbox.enqueue(
      makeEvent('alpha', 0),
      details.map((_, i) => hook(`http://h${i}.test/`)),
    );
    const rows = outbox.takeDue(FAR, 10);
    for (const [i, row] of rows.entries()) {
      outbox.markDead(row.id, 'refused');
      db.prepare('UPDATE webhook_deliveries SET last_error = ? WHERE id = ?').run(details[i]!, row.id);
    }
    expect(outbox.deadFor('alpha').map((dead) => dead.lastError)).toEqual([
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
    const { outbox } = fixture();
    outbox.enqueue(makeEvent('alpha', 0), []);
    expect(outbox.pendingCount()).toBe(0);
  });
});
