import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EngineCommand } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { describe, expect, it } from 'vitest';
import { sendQueueSchema, SqliteSendQueue } from '../../src/local/sqlite-send-queue.js';
import { openDatabase } from '../../src/local/store/database.js';
import { type QueuedSendRow, SendPacer } from '@switchboard/engine-pod';

/**
 * What recovery does with a send a crash left `sending` (handed to the engine, its fate unknown),
 * on the real SQLite queue: the message history decides. The engine is the one thing played here,
 * by a recorder of the commands it is given; the crash itself is in send-queue-crash.test.ts.
 */
function crashedQueue(): SqliteSendQueue {
  const store = new SqliteSendQueue(openDatabase(mkdtempSync(join(tmpdir(), 'switchboard-pacer-')), [sendQueueSchema]));
  const row = (id: string, state: QueuedSendRow['state'], n: number): QueuedSendRow => ({
    id,
    session: 's',
    chatId: 'a@c.us',
    route: '/api/sendText',
    command: { op: 'send.text', args: { chatId: 'a@c.us', text: `text ${n}`, linkPreview: true, id } },
    state,
    queuedAt: n,
  });
  store.add(row('INFLIGHT0001', 'sending', 1));
  store.add(row('QUEUED000002', 'queued', 2));
  return store;
}

const messageIdOf = (command: EngineCommand): unknown => ('args' in command ? (command.args as { id?: unknown }).id : undefined);

function pacer(store: SqliteSendQueue, inHistory: readonly string[]) {
  const executed: EngineCommand[] = [];
  const pacer = new SendPacer({
    store,
    execute: async (_session, command) => {
      executed.push(command);
      return { id: 'sent' };
    },
    sendingOf: () => ({ maxQueued: 10 }),
    alreadySent: async (_session, _chatId, id) => inHistory.includes(id),
    log: { warn: () => {} },
  });
  return { pacer, executed };
}

describe('recovery of a send left `sending`', () => {
  it('marks it sent, without sending it again, when its message is in the history', async () => {
    const store = crashedQueue();
    const { pacer: p, executed } = pacer(store, ['INFLIGHT0001']);
    await p.recover();
    await waitFor(() => store.count('s') === 0, 'the queue to empty');
    await p.stop();
    expect(executed.map(messageIdOf)).toEqual(['QUEUED000002']);
    expect(store.recentSends('s', 0)).toHaveLength(2);
  });

  it('sends it again, first and with its own id, when its message is not in the history', async () => {
    const store = crashedQueue();
    const { pacer: p, executed } = pacer(store, []);
    await p.recover();
    await waitFor(() => store.count('s') === 0, 'the queue to empty');
    await p.stop();
    expect(executed.map(messageIdOf)).toEqual(['INFLIGHT0001', 'QUEUED000002']);
  });

  it('sends nothing before recovery: a poke before it is ignored', async () => {
    const store = crashedQueue();
    const { pacer: p, executed } = pacer(store, []);
    p.poke('s');
    expect(store.list('s', { limit: 10, offset: 0 }).map(({ state }) => state)).toEqual(['sending', 'queued']);
    await p.stop();
    expect(executed).toEqual([]);
  });
});
