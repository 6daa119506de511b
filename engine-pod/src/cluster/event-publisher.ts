import { setTimeout as sleep } from 'node:timers/promises';
import { STREAMS, SUBJECTS } from '@switchboard/protocol';
import { deadline, type JetStreamClient, type NatsConnection } from 'nats';
import type { EngineLog } from '../engine.js';
import type { HostedEvent } from '../engine-host.js';
import { durableStreamConfig, ensureStream, type StoreOptions } from './jetstream.js';

/**
 * The stream every session's events land in. The duplicate window is what makes a retried
 * publish safe: the event id is the message id, so a publish that reached the server but lost
 * its ack is stored once however often it is retried within two minutes.
 */
export const EVENTS_STREAM_CONFIG = durableStreamConfig(STREAMS.events, [SUBJECTS.allEvents], 7);

export async function ensureEventStream(nc: NatsConnection): Promise<void> {
  await ensureStream(await nc.jetstreamManager(), EVENTS_STREAM_CONFIG);
}

export interface EventPublisherOptions extends StoreOptions {
  readonly log: EngineLog;
  /** How long one publish waits for the server's ack before it is retried. */
  readonly ackTimeoutMs?: number;
  /** Retry delays grow from 100 ms by doubling up to this. */
  readonly maxRetryDelayMs?: number;
}

/**
 * Invariant 2 starts here: no event is lost between the engine and the stream. The host hands
 * events over synchronously; they are published one at a time, in the order the host made
 * them, each retried until JetStream acknowledges it. Never dropped: a NATS outage only delays
 * the queue, and the event id as message id keeps the retries from storing duplicates.
 */
export class EventPublisher {
  private queue: (HostedEvent | undefined)[] = [];
  private head = 0;
  private draining: Promise<void> | null = null;
  private readonly closing = new AbortController();
  private readonly ackTimeoutMs: number;
  private readonly maxRetryDelayMs: number;

  private constructor(
    private readonly js: JetStreamClient,
    private readonly options: EventPublisherOptions,
  ) {
    this.ackTimeoutMs = options.ackTimeoutMs ?? 5_000;
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? 5_000;
  }

  /**
   * Makes sure the events stream exists first: a publish with no stream would never be acked.
   * Bound, it trusts the operator to have made it (`ensureClusterStores`).
   */
  static async open(nc: NatsConnection, options: EventPublisherOptions): Promise<EventPublisher> {
    if (!options.bind) await ensureEventStream(nc);
    return new EventPublisher(nc.jetstream(), options);
  }

  /** Events waiting for their ack. */
  get pending(): number {
    return this.queue.length - this.head;
  }

  /** Synchronous, like the host's `publish` callback: the event is queued, never refused. */
  publish(event: HostedEvent): void {
    if (this.closing.signal.aborted) {
      this.options.log.error({ eventId: event.envelope.id, event: event.envelope.event }, 'event published after close; dropped');
      return;
    }
    this.queue.push(event);
    this.draining ??= this.drain();
  }

  /** Resolves true once every queued event is acked, or false when `timeoutMs` runs out first. */
  async flush(timeoutMs?: number): Promise<boolean> {
    if (this.draining) {
      try {
        await (timeoutMs === undefined ? this.draining : deadline(this.draining, timeoutMs));
      } catch {
        return false;
      }
    }
    return this.pending === 0;
  }

  /** Stops retrying. Events still queued are logged by count: the process is going away. */
  close(): void {
    if (this.pending > 0) this.options.log.error({ pending: this.pending }, 'event publisher closed with events not acked');
    this.closing.abort();
  }

  private async drain(): Promise<void> {
    try {
      while (this.head < this.queue.length && !this.closing.signal.aborted) {
        const event = this.queue[this.head]!;
        await this.publishUntilAcked(event);
        this.queue[this.head] = undefined;
        this.head++;
        // Under a steady stream of events the queue never empties; drop the acked prefix now and then.
        if (this.head >= 1024) {
          this.queue.splice(0, this.head);
          this.head = 0;
        }
      }
    } catch (error) {
      if (!this.closing.signal.aborted) throw error;
    } finally {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
      this.draining = null;
    }
  }

  private async publishUntilAcked(event: HostedEvent): Promise<void> {
    const { envelope } = event;
    const subject = SUBJECTS.event(envelope.session, envelope.event);
    for (let attempt = 0; ; attempt++) {
      try {
        await this.js.publish(subject, event.json, { msgID: envelope.id, timeout: this.ackTimeoutMs });
        if (attempt > 0) this.options.log.info({ eventId: envelope.id, attempts: attempt + 1 }, 'event published after retries');
        return;
      } catch (error) {
        const delayMs = Math.min(100 * 2 ** Math.min(attempt, 16), this.maxRetryDelayMs);
        const context = { eventId: envelope.id, event: envelope.event, attempt, delayMs, err: error };
        this.options.log.warn(context, 'event publish failed; retrying');
        await sleep(delayMs, undefined, { signal: this.closing.signal });
      }
    }
  }
}
