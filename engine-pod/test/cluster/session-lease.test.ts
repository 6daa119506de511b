import { KV_BUCKETS } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { connect, type NatsConnection } from 'nats';
import { describe, expect, it } from 'vitest';
import { SessionLease } from '../../src/index.js';
import { natsForTests, silent } from './helpers.js';

// Short timings: the bucket keeps the ttl of whoever created it, here the first test.
const TIMING = { ttlMs: 1_000, renewMs: 200, retryMs: 50 };

const nats = natsForTests();

const lease = (session: string, holder: string, on: NatsConnection = nats.nc) => SessionLease.open(on, { session, holder, log: silent, ...TIMING });

/** A logger that keeps each message with its fields, to tell which way a lease was taken. */
function recordingLog(): { readonly lines: { msg: string; fields: Record<string, unknown> }[]; info: Log; warn: Log; error: Log } {
  const lines: { msg: string; fields: Record<string, unknown> }[] = [];
  const keep: Log = (fields, msg = '') => void lines.push({ msg, fields: fields as Record<string, unknown> });
  return { lines, info: keep, warn: keep, error: keep };
}
type Log = (fields: object, msg?: string) => void;

/** A holder on a connection of its own, which it loses the way a killed container does. */
async function crashedHolder(session: string, holder: string, podUid?: string): Promise<number> {
  const crashing = await connect({ servers: nats.server.url });
  const first = await SessionLease.open(crashing, { session, holder, ...(podUid ? { podUid } : {}), log: silent, ...TIMING });
  const token = await first.acquire();
  await crashing.close(); // no release, no more renewals: the key stays until its ttl
  return token;
}

describe('SessionLease (invariant 1: one engine per session)', () => {
  it('a second holder waits until the first releases, then gets a higher fencing token', async () => {
    const first = await lease('l-wait', 'pod-a');
    const second = await lease('l-wait', 'pod-b');
    const token = await first.acquire();
    expect(first.fencingToken).toBe(token);
    let secondToken: number | null = null;
    const waiting = second.acquire().then((t) => (secondToken = t));
    await new Promise((resolve) => setTimeout(resolve, 1_500)); // longer than the ttl: renewals keep it
    expect(secondToken).toBeNull();
    expect(first.held).toBe(true);
    await first.release();
    expect(first.held).toBe(false);
    await waiting;
    expect(secondToken).toBeGreaterThan(token);
    expect(second.fencingToken).toBe(secondToken);
    await second.release();
  });

  it('a holder whose key is overwritten sees onLost, and its release leaves the new holder alone', async () => {
    const holder = await lease('l-over', 'pod-a');
    const reasons: string[] = [];
    holder.onLost((reason) => reasons.push(reason));
    await holder.acquire();
    const kv = await nats.nc.jetstream().views.kv(KV_BUCKETS.leases);
    await kv.put('l-over', JSON.stringify({ holder: 'intruder' }));
    await waitFor(() => reasons.length > 0, 'onLost', 2_000);
    expect(reasons[0]).toMatch(/another holder/);
    expect(holder.held).toBe(false);
    expect(holder.fencingToken).toBeNull();
    await holder.release();
    expect((await kv.get('l-over'))?.json()).toEqual({ holder: 'intruder' });
    await kv.delete('l-over');
  });

  it('a lease nobody renews lapses after its ttl, and its holder knows before anyone else can take it', async () => {
    const crashing = await connect({ servers: nats.server.url });
    const first = await lease('l-lapse', 'pod-a', crashing);
    let lostAt = 0;
    first.onLost(() => (lostAt = Date.now()));
    await first.acquire();
    await crashing.close(); // the pod's connection is gone: no more renewals
    const started = Date.now();
    const second = await lease('l-lapse', 'pod-b');
    await second.acquire();
    const acquiredAt = Date.now();
    expect(acquiredAt - started).toBeLessThan(TIMING.ttlMs + 1_500);
    expect(lostAt).toBeGreaterThan(0);
    expect(lostAt).toBeLessThan(acquiredAt);
    await second.release();
  });

  it('acquire gives up when aborted', async () => {
    const first = await lease('l-abort', 'pod-a');
    await first.acquire();
    const second = await lease('l-abort', 'pod-b');
    const controller = new AbortController();
    const waiting = second.acquire(controller.signal);
    setTimeout(() => controller.abort(), 100);
    await expect(waiting).rejects.toThrow();
    expect(second.held).toBe(false);
    await first.release();
  });

  it('a container restarted in the same pod (same name, same uid) takes the lease back at once with a higher fencing token', async () => {
    const old = await crashedHolder('l-restart', 'engine-a', 'uid-1');
    const log = recordingLog();
    const restarted = await SessionLease.open(nats.nc, { session: 'l-restart', holder: 'engine-a', podUid: 'uid-1', log, ...TIMING });
    const token = await restarted.acquire();
    expect(token).toBeGreaterThan(old);
    // Taken over by compare-and-set on the crashed holder's revision, not after the key lapsed.
    expect(log.lines.find((l) => l.msg === 'session lease taken back from an earlier container of this pod')?.fields).toMatchObject({
      previous: old,
      fencingToken: token,
    });
    const kv = await nats.nc.jetstream().views.kv(KV_BUCKETS.leases);
    expect((await kv.get('l-restart'))?.json()).toMatchObject({ holder: 'engine-a', podUid: 'uid-1' });
    await restarted.release();
  });

  it('a new pod of the same name (another uid), or a holder that records no uid, waits for the lease as any other pod does', async () => {
    for (const [session, oldUid] of [
      ['l-replaced', 'uid-1'],
      ['l-no-uid', undefined],
    ] as const) {
      const old = await crashedHolder(session, 'engine-a', oldUid);
      const log = recordingLog();
      const replacement = await SessionLease.open(nats.nc, { session, holder: 'engine-a', podUid: 'uid-2', log, ...TIMING });
      const controller = new AbortController();
      const waiting = replacement.acquire(controller.signal);
      await waitFor(() => log.lines.some((l) => l.msg === 'session lease held by another pod; waiting'), 'the replacement waiting', 2_000);
      controller.abort();
      await expect(waiting).rejects.toThrow();
      expect(replacement.held).toBe(false);
      expect(log.lines.map((l) => l.msg)).not.toContain('session lease taken back from an earlier container of this pod');
      const kv = await nats.nc.jetstream().views.kv(KV_BUCKETS.leases);
      const entry = await kv.get(session);
      // Still the old holder's key, unless its ttl ran out meanwhile (then nobody has it).
      if (entry?.operation === 'PUT') expect(entry.revision).toBe(old);
    }
  });
});
