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
 * Where the webhook fan-out logs each event as it decides its deliveries, so that an event
 * queued for a webhook is logged in the same commit as its deliveries (local mode).
 */
export interface EventLogWriter {
  /** Runs inside the transaction that writes the event's outbox rows: committed or rolled back with them. */
  appendWithDeliveries(event: PublishedEvent): void;
  /** An event no webhook takes: logged on its own. */
  append(event: PublishedEvent): void;
}
