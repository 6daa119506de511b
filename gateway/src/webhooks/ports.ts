import type { DeadDelivery, ReplayResult } from '@switchboard/protocol';
import type { PublishedEvent } from '../events/event-bus.js';

/**
 * Dead webhook deliveries of a session: local mode keeps them in the SQLite outbox, cluster mode
 * in the SB_DEAD stream. The routes of `routes/deliveries.ts` use this port only.
 */
export interface DeadDeliveries {
  /** Oldest first. */
  list(session: string, page: { limit: number; offset: number }): Promise<DeadDelivery[]>;
  /**
   * Queues the named dead deliveries (all of the session without `ids`) again from their first
   * attempt, to the session's webhook with the same url as it is configured now. Throws a 404
   * ApiError naming the ids that are not dead deliveries of the session, and then queues none.
   */
  replay(session: string, ids: readonly number[] | undefined): Promise<ReplayResult>;
}

/** The events a session made, kept for a while so a receiver can catch up after an outage. */
export interface EventLog {
  /** JSON envelopes of the session's events with ids after `since` (all kept without it), oldest first. */
  since(session: string, since: string | undefined, limit: number): Promise<string[]>;
}

/**
 * Where the webhook fan-out logs the events no webhook takes (local mode). An event queued for a
 * webhook is logged by the outbox: its row in the log is the webhooks' queue.
 */
export interface EventLogWriter {
  append(event: PublishedEvent): void;
}

/** A webhook its receiver disabled (410 Gone), with the url as the mode keeps it. */
export interface DisabledEntry {
  readonly url: string;
  readonly disabledAt: number;
}

/**
 * Webhooks their receivers disabled with a 410 Gone, per session (docs/events.md): nothing is
 * sent to one, its deliveries go dead at once, until it is enabled again. Local mode keeps them in
 * SQLite, cluster mode in a KV bucket every replica follows; both answer `isDisabled` from memory.
 */
export interface WebhookStates {
  /** Asked before every attempt: a lookup in memory. */
  isDisabled(session: string, url: string): boolean;
  disable(session: string, url: string, at: number): Promise<void>;
  /** The session's disabled webhooks, oldest first. */
  list(session: string): Promise<DisabledEntry[]>;
  /** Enables those of `urls` (every one without) and returns the urls enabled. */
  enable(session: string, urls?: readonly string[]): Promise<string[]>;
}
