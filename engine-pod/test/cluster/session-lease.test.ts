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
});
