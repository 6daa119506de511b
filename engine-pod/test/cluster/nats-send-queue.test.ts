import { type EngineCommand, KV_BUCKETS, SEND_QUEUE_KEYS, SendQueueRecord } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { describe, expect, it } from 'vitest';
import { NatsSendQueue, SendQueueFenced } from '../../src/cluster/nats-send-queue.js';
import type { QueuedSendRow } from '../../src/sending/send-queue-store.js';
import { SendPacer } from '../../src/sending/send-pacer.js';
import { natsForTests, silent } from './helpers.js';

/*
 * Cluster mode's send queue of one session in NATS KV (a real server): what a pod writes, the
 * next pod of the session reads back in order; writes need the lease's token and the revision last
 * seen. The engine is the one thing played here, by a recorder of the commands it is given.
 */

const nats = natsForTests();

const open = (session: string, token: () => number | null = () => 1) => NatsSendQueue.open(nats.nc, { session, fencingToken: token });

const row = (session: string, id: string, n: number, chatId = '15551230001@c.us'): QueuedSendRow => ({
  id,
  session,
  chatId,
  route: '/api/sendText',
  command: { op: 'send.text', args: { chatId, text: `text ${n}`, linkPreview: true, id } },
  state: 'queued',
  queuedAt: n,
});

const idOf = (command: EngineCommand): unknown => ('args' in command ? (command.args as { id?: unknown }).id : undefined);

function recordingPacer(store: NatsSendQueue, session: string, inHistory: readonly string[] = []) {
  const executed: EngineCommand[] = [];
  const pacer = new SendPacer({
    store,
    execute: async (_session, command) => {
      executed.push(command);
      return { id: idOf(command) };
    },
    sendingOf: () => ({ maxQueued: 10 }),
    alreadySent: async (_session, _chatId, id) => inHistory.includes(id),
    log: silent,
  });
  return { pacer, executed, session };
}

describe('NatsSendQueue: the queue outlives its engine pod', () => {
  it('the next pod reads the queue back in its order, with each send’s state, the recent sends and the pairing date', async () => {
    const first = await open('q-order');
    for (const [n, id] of ['C', 'A', 'B'].entries()) expect(await first.add(row('q-order', id, n))).toBe(true);
    expect(await first.add(row('q-order', 'A', 9))).toBe(false);
    await first.markSending('q-order', 'C');
    await first.markSent('q-order', 'C', { chatId: '15551230001@c.us', at: 1_000_000 });
    await first.markSending('q-order', 'A');
    await first.setPairedAt('q-order', 42);
    await first.setPairedAt('q-order', 43);

    const next = await open('q-order');
    expect(next.list('q-order', { limit: 10, offset: 0 }).map(({ id, state }) => `${id}:${state}`)).toEqual(['A:sending', 'B:queued']);
    expect(next.inFlight().map(({ id }) => id)).toEqual(['A']);
    expect(next.recentSends('q-order', 0)).toEqual([{ chatId: '15551230001@c.us', at: 1_000_000 }]);
    expect(next.pairedAt()).toBe(42);
    // A new send goes after the ones read back, whatever its id.
    await next.add(row('q-order', '0', 5));
    expect(next.list('q-order', { limit: 10, offset: 0 }).map(({ id }) => id)).toEqual(['A', 'B', '0']);
    expect((await open('q-order')).list('q-order', { limit: 10, offset: 1 }).map(({ id }) => id)).toEqual(['B', '0']);
  });

  it('keeps every record with the fencing token of the lease that wrote it, in the shape protocol gives the Go pod', async () => {
    const store = await open('q-token', () => 7);
    await store.add(row('q-token', 'X', 1));
    const kv = await nats.nc.jetstream().views.kv(KV_BUCKETS.sendQueues);
    const entry = await kv.get(SEND_QUEUE_KEYS.queued('q-token', 'X'));
    const record = SendQueueRecord.parse(entry!.json());
    expect(record).toMatchObject({ id: 'X', session: 'q-token', state: 'queued', seq: 1, fencingToken: 7, command: { op: 'send.text' } });
  });

  it('forgets the sends older than the pacing windows and the warm-up look at (two days)', async () => {
    const store = await open('q-prune');
    const now = Date.now();
    for (const [n, at] of [now - 3 * 24 * 60 * 60_000, now].entries()) {
      await store.add(row('q-prune', `P${n}`, n));
      await store.markSent('q-prune', `P${n}`, { chatId: '15551230001@c.us', at });
    }
    expect((await open('q-prune')).recentSends('q-prune', 0)).toEqual([{ chatId: '15551230001@c.us', at: now }]);
  });

  it('cancels only a send still queued', async () => {
    const store = await open('q-cancel');
    await store.add(row('q-cancel', 'A', 1));
    await store.add(row('q-cancel', 'B', 2));
    await store.markSending('q-cancel', 'A');
    expect(await store.cancel('q-cancel', 'A')).toBe(false);
    expect(await store.cancel('q-cancel', 'B')).toBe(true);
    expect(await store.cancel('q-cancel', 'B')).toBe(false);
    expect((await open('q-cancel')).list('q-cancel', { limit: 10, offset: 0 }).map(({ id }) => id)).toEqual(['A']);
  });
});

describe('NatsSendQueue: fencing (only the lease holder writes)', () => {
  it('refuses every write without the lease', async () => {
    let token: number | null = 1;
    const store = await open('q-fence', () => token);
    await store.add(row('q-fence', 'A', 1));
    token = null;
    await expect(store.add(row('q-fence', 'B', 2))).rejects.toBeInstanceOf(SendQueueFenced);
    await expect(store.markSending('q-fence', 'A')).rejects.toBeInstanceOf(SendQueueFenced);
    expect((await open('q-fence')).list('q-fence', { limit: 10, offset: 0 }).map(({ id, state }) => `${id}:${state}`)).toEqual(['A:queued']);
  });

  it('a pod that lost the session cannot overwrite what the next holder wrote', async () => {
    const old = await open('q-stale', () => 1);
    await old.add(row('q-stale', 'A', 1));
    const next = await open('q-stale', () => 2);
    await next.markSending('q-stale', 'A');
    await expect(old.cancel('q-stale', 'A')).rejects.toBeInstanceOf(SendQueueFenced);
    const read = await open('q-stale');
    expect(read.list('q-stale', { limit: 10, offset: 0 }).map(({ id, state }) => `${id}:${state}`)).toEqual(['A:sending']);
  });
});

describe('a pod gone with sends queued: the next one sends each once, in order', () => {
  it('a send left `sending` whose message is in the history is not sent again; the rest go in queue order', async () => {
    const gone = await open('q-move');
    for (const [n, id] of ['M1', 'M2', 'M3', 'M4'].entries()) await gone.add(row('q-move', id, n));
    await gone.markSending('q-move', 'M1');
    await gone.markSent('q-move', 'M1', { chatId: '15551230001@c.us', at: Date.now() });
    // Killed after handing M2 to the engine, which sent it: the history has it.
    await gone.markSending('q-move', 'M2');

    const { pacer, executed } = recordingPacer(await open('q-move'), 'q-move', ['M2']);
    await pacer.recover();
    await waitFor(async () => (await open('q-move')).count() === 0, 'the queue to empty');
    await pacer.stop();
    expect(executed.map(idOf)).toEqual(['M3', 'M4']);
    // Each of the four counts once in the pacing windows, M2 as recovery found it sent.
    expect((await open('q-move')).recentSends('q-move', 0)).toHaveLength(4);
  });

  it('a send left `sending` whose message is not in the history goes again first, with its own id', async () => {
    const gone = await open('q-resend');
    for (const [n, id] of ['R1', 'R2'].entries()) await gone.add(row('q-resend', id, n));
    await gone.markSending('q-resend', 'R1');
    const { pacer, executed } = recordingPacer(await open('q-resend'), 'q-resend');
    await pacer.recover();
    await waitFor(async () => (await open('q-resend')).count() === 0, 'the queue to empty');
    await pacer.stop();
    expect(executed.map(idOf)).toEqual(['R1', 'R2']);
  });
});
