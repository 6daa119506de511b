import type { EngineCommand, QueuedSend } from '@switchboard/protocol';
import type { SentSend } from './pacing.js';

/** A waiting send as the store keeps it: what the API lists, and the engine command it becomes. */
export interface QueuedSendRow extends QueuedSend {
  readonly command: EngineCommand;
}

/** What a store answers now (SQLite) or later (NATS KV); the pacer awaits either. */
export type Awaitable<T> = T | Promise<T>;

/**
 * The send queues' durable state (local mode: the gateway's local/sqlite-send-queue.ts; cluster
 * mode: cluster/nats-send-queue.ts, the one session of an engine pod). Every method is one
 * transaction, or one write, so a crash leaves a send either queued, sending (handed to the
 * engine, fate unknown) or sent, never half of one.
 */
export interface SendQueueStore {
  /** Appends to the session's queue; false when the session already has a send with this id. */
  add(row: QueuedSendRow): Awaitable<boolean>;
  count(session: string): Awaitable<number>;
  /** The session's waiting sends in queue order, one page. */
  list(session: string, page: { readonly limit: number; readonly offset: number }): Awaitable<QueuedSendRow[]>;
  /** How many of the session's sends are before this one (-1: not queued). */
  position(session: string, id: string): Awaitable<number>;
  /** Marks a queued send as handed to the engine: it can no longer be cancelled. */
  markSending(session: string, id: string): Awaitable<void>;
  /** Back to queued (its engine call failed for a reason that passes: the session not working). */
  requeue(session: string, id: string): Awaitable<void>;
  /** Removes the send and records it among the session's recent sends (the pacing windows). */
  markSent(session: string, id: string, sent: SentSend): Awaitable<void>;
  /** Removes a send that failed for good. */
  drop(session: string, id: string): Awaitable<void>;
  /** Removes a queued send; false when it is not there or already sending. */
  cancel(session: string, id: string): Awaitable<boolean>;
  /** The sessions with sends waiting, and each send left `sending` by a stop or crash. */
  sessionsWithSends(): Awaitable<string[]>;
  inFlight(): Awaitable<QueuedSendRow[]>;
  /** How many sends wait in each session's queue that has any. */
  depths(): Awaitable<Map<string, number>>;
  /** The session's sends since `since` (the pacing windows; older ones are pruned). */
  recentSends(session: string, since: number): Awaitable<SentSend[]>;
  pairedAt(session: string): Awaitable<number | null>;
  /** Records the pairing date once: a date already recorded stays. */
  setPairedAt(session: string, at: number): Awaitable<void>;
  /** Everything of a session: on logout (not the queue) and delete (all). */
  forgetPairing(session: string): Awaitable<void>;
  forgetSession(session: string): Awaitable<void>;
}
