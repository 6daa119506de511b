import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { addTransactionCapability, MessageRetryManager, type SignalKeyStore } from '@whiskeysockets/baileys';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { keepRetryCacheOutOfTransactions } from '../../src/engines/noweb/retry-cache-context.js';

// A full collection on demand, without --expose-gc on the command line: the test asks whether
// what a send's transaction read can be collected once the send is over.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** A key store that hands out a new session record for every read, as the real ones do (revived from JSON). */
function recordStore(): { store: SignalKeyStore; handedOut: WeakRef<object>[] } {
  const handedOut: WeakRef<object>[] = [];
  const store: SignalKeyStore = {
    get: async (_type, ids) => {
      const found: Record<string, unknown> = {};
      for (const id of ids) {
        const record = { _sessions: { base: { chains: Array.from({ length: 16 }, (_, i) => ({ key: Buffer.alloc(32, i) })) } } };
        handedOut.push(new WeakRef(record));
        found[id] = record;
      }
      return found as never;
    },
    set: async () => {},
  };
  return { store, handedOut };
}

/** Sends as Baileys' relayMessage makes them: reads the record and adds the message to the retry cache inside one key transaction. */
async function send(
  keys: SignalKeyStore & { transaction: (work: () => Promise<unknown>, key: string) => Promise<unknown> },
  manager: MessageRetryManager,
  count: number,
): Promise<void> {
  for (let i = 0; i < count; i++) {
    await keys.transaction(async () => {
      await keys.get('session', ['15557770009.0']);
      manager.addRecentMessage('15557770009@s.whatsapp.net', `MSG${i}`, { conversation: `text ${i}` });
    }, 'send');
  }
}

async function alive(refs: readonly WeakRef<object>[]): Promise<number> {
  // A WeakRef keeps its target until the current job ends: collect after it.
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  return refs.filter((ref) => ref.deref() !== undefined).length;
}

const logger = pino({ level: 'silent' });
const SENDS = 50;

describe("NOWEB: Baileys' retry cache keeps the sent messages, not the transactions they were sent in", () => {
  it('lets every session record a send read be collected once the sends are done', async () => {
    const { store, handedOut } = recordStore();
    const keys = addTransactionCapability(store, logger, { maxCommitRetries: 1, delayBetweenTriesMs: 1 });
    const socket = { messageRetryManager: new MessageRetryManager(logger, 5) };
    keepRetryCacheOutOfTransactions(socket);
    await send(keys, socket.messageRetryManager, SENDS);
    expect(handedOut).toHaveLength(SENDS);
    expect(await alive(handedOut)).toBe(0);
    // The messages themselves stay, for a retry receipt.
    expect(socket.messageRetryManager.getRecentMessage('15557770009@s.whatsapp.net', `MSG${SENDS - 1}`)?.message).toEqual({
      conversation: `text ${SENDS - 1}`,
    });
  });

  it('(the library alone keeps each send’s records as long as its cache entry lives)', async () => {
    // What the fix is for, shown on the unchanged library: if this ever collects them, Baileys no
    // longer pins its transactions and keepRetryCacheOutOfTransactions can go.
    const { store, handedOut } = recordStore();
    const keys = addTransactionCapability(store, logger, { maxCommitRetries: 1, delayBetweenTriesMs: 1 });
    const manager = new MessageRetryManager(logger, 5);
    await send(keys, manager, SENDS);
    expect(await alive(handedOut)).toBe(SENDS);
  });
});
