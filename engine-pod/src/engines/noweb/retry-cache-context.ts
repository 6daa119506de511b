import { AsyncLocalStorage } from 'node:async_hooks';
import type { MessageRetryManager } from '@whiskeysockets/baileys';

/**
 * Baileys keeps each message it sends for retry receipts: an LRU of 512 with a purge timer per
 * entry (5 minutes), filled from inside the signal key transaction of the send. A timer keeps the
 * async context it was created in, and with it the transaction's AsyncLocalStorage store: every
 * signal session record the send read and wrote, and the Buffers in them, each pinning a slab of
 * Node's buffer pool (64 KiB in Node 24). So each of the 512 entries held a copy of the session
 * records, which grow by one session each time Baileys refreshes the contact's devices (every 5
 * minutes, up to libsignal's 40): a NOWEB pod sending to one chat grew by about 0.4 MB a minute
 * (docs/operations.md, "Soak"). Run outside the transaction, the cache's timers keep the context
 * the socket was made in, and the entries keep only the messages.
 */
export function keepRetryCacheOutOfTransactions(socket: { readonly messageRetryManager: MessageRetryManager | null }): void {
  const manager = socket.messageRetryManager;
  if (!manager) return;
  const outside = AsyncLocalStorage.snapshot();
  const add = manager.addRecentMessage.bind(manager);
  manager.addRecentMessage = (to, id, message) => outside(() => add(to, id, message));
}
