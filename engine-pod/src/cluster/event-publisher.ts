import { setTimeout as sleep } from 'node:timers/promises';
import { ensureEventStream, type StoreOptions } from '@switchboard/kube/pod';
import { SUBJECTS } from '@switchboard/protocol';
import { deadline, ErrorCode, type JetStreamClient, type NatsConnection, type NatsError } from 'nats';
import { CommandError } from '../command-error.js';
import type { EngineLog } from '../engine.js';
import type { HostedEvent } from '../engine-host.js';

export interface EventPublisherOptions extends StoreOptions {
  readonly log: EngineLog;
  /** How long one publish waits for the server's ack before it is retried. */
  readonly ackTimeoutMs?: number;
  /** Retry delays grow from 100 ms by doubling up to this. */
  readonly maxRetryDelayMs?: number;
}

/** What a command's reply waits on (command-server.ts): the acks of the events queued before it. */
export interface EventBarrier {
  /** Why the event at the head of the queue was not stored at its last attempt; null while publishes work. */
  readonly failing: string | null;
  /** Resolves once every event queued before the call is acked; a CommandError when one is refused or `timeoutMs` runs out. */
  stored(timeoutMs: number): Promise<void>;
}

interface Waiter {
  /** Resolved once this many events (counted since the publisher opened) are acked. */
  readonly upTo: number;
  readonly resolve: () => void;
  readonly reject: (error: CommandError) => void;
}

/**
 * Invariant 2 starts here: no event is lost between the engine and the stream. The host hands
 * events over synchronously; they are published one at a time, in the order the host made
 * them, each retried until JetStream acknowledges it. Never dropped: a NATS outage only delays
 * the queue, and the event id as message id keeps the retries from storing duplicates.
 * A command's reply waits on `stored` (a 201 means stored): one barrier over the acks already
 * awaited, no publish of its own.
 */
export class EventPublisher implements EventBarrier {
  private queue: (HostedEvent | undefined)[] = [];
  private head = 0;
  /** Events queued and acked since the publisher opened: a barrier waits for acked to reach queued. */
  private queued = 0;
  private acked = 0;
  private waiters: Waiter[] = [];
  private failure: string | null = null;
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
    this.queued++;
    this.draining ??= this.drain();
  }

  get failing(): string | null {
    return this.failure;
  }

  stored(timeoutMs: number): Promise<void> {
    const upTo = this.queued;
    if (this.acked >= upTo) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(eventsNotStored(this.failure ?? `JetStream did not acknowledge the events within ${timeoutMs} ms`, true));
      }, timeoutMs);
      const waiter: Waiter = {
        upTo,
        resolve: () => (clearTimeout(timer), resolve()),
        reject: (error) => (clearTimeout(timer), reject(error)),
      };
      this.waiters.push(waiter);
    });
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
    this.refuseWaiters('the engine pod is stopping');
  }

  private ackedOne(): void {
    this.acked++;
    this.failure = null;
    // Waiters are pushed in the order of their marks, so the ones done are a prefix.
    let done = 0;
    while (done < this.waiters.length && this.waiters[done]!.upTo <= this.acked) done++;
    if (done === 0) return;
    for (const waiter of this.waiters.splice(0, done)) waiter.resolve();
  }

  /** Every waiter waits on the head event (it is not acked), so its refusal is theirs. */
  private refuseWaiters(reason: string): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter.reject(eventsNotStored(reason, true));
  }

  private async drain(): Promise<void> {
    try {
      while (this.head < this.queue.length && !this.closing.signal.aborted) {
        const event = this.queue[this.head]!;
        await this.publishUntilAcked(event);
        this.queue[this.head] = undefined;
        this.head++;
        this.ackedOne();
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
        this.failure = reasonOf(error);
        this.refuseWaiters(this.failure);
        const delayMs = Math.min(100 * 2 ** Math.min(attempt, 16), this.maxRetryDelayMs);
        const context = { eventId: envelope.id, event: envelope.event, attempt, delayMs, err: error };
        this.options.log.warn(context, 'event publish failed; retrying');
        await sleep(delayMs, undefined, { signal: this.closing.signal });
      }
    }
  }
}

/** What a client can read in a refused publish: the server's description, not nats.js's bare code. */
function reasonOf(error: unknown): string {
  const nats = error as Partial<NatsError> | null;
  if (nats?.api_error?.description) return nats.api_error.description;
  if (nats?.code === ErrorCode.NoResponders) return 'JetStream did not answer: no stream takes the events, or JetStream is unavailable';
  if (nats?.code === ErrorCode.Timeout) return 'JetStream did not acknowledge the event in time';
  return error instanceof Error ? error.message : String(error);
}

/** JetStream's refusals when the stream or its server has no room (discard new, storage limits). */
const STORAGE_FULL = /maximum (bytes|messages)|insufficient (resources|storage)|storage (limit|exceeded)/i;

/**
 * Why a command's reply is an error: its events are not (yet) in the stream (`ran`), or events
 * cannot be stored now, so it was not run. STORAGE_FULL (507) when JetStream has no room.
 */
export function eventsNotStored(reason: string, ran: boolean): CommandError {
  const what = ran
    ? 'the command ran, but its events are not in the event stream yet; the engine pod keeps retrying them while it runs, ' +
      'so they may still be stored and delivered later (once each), or never if the pod stops first'
    : 'events cannot be stored now, so the command was not run; try again';
  return new CommandError(STORAGE_FULL.test(reason) ? 'STORAGE_FULL' : 'NOT_STORED', `the event could not be stored (${reason}): ${what}`, {
    reason,
  });
}
