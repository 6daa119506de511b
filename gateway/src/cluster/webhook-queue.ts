import { setTimeout as sleep } from 'node:timers/promises';
import { type ResourceWebhookConfig, STREAMS, SUBJECTS, webhookWants } from '@switchboard/protocol';
import type { Logger } from 'pino';
import { AckPolicy, type ConsumerMessages, DeliverPolicy, type JsMsg, type NatsConnection, nanos } from 'nats';
import { storeDeadLetter } from './dead-letters.js';
import { type AttemptContext, deliverWithRetries, disableGone, type GivenUp, keepAlive, settle } from './delivery-attempts.js';
import type { ForgedEventGuard } from './forged-events.js';

/**
 * How long the server waits for a replica's ack of a webhook event before another replica gets it.
 * The replica reports progress every third of it while a delivery (with its retries) goes on, so
 * this bounds only how long a replica that died or was cut off from NATS holds its queues: every
 * session whose next event it held waits that long. 30 s (nats' default) stalled delivery that long
 * in the chaos tier (docs/operations.md); 10 s keeps a progress report's margin over event-loop
 * stalls of a busy replica (a late one costs a duplicate with the same id, not a loss).
 */
export const WEBHOOK_ACK_WAIT_MS = 10_000;

/** A pull request's lifetime: at most the ack wait (nats.js needs at least 1 s). */
export function pullExpiryMs(ackWaitMs: number): number {
  return Math.max(1_000, ackWaitMs);
}

/** One (session, webhook) queue: its durable consumer's name and what it delivers. */
export interface QueueSpec {
  readonly name: string;
  readonly session: string;
  readonly targetId: string;
  /** Where a consumer made now starts: about when this replica first saw the webhook. */
  readonly startTime: Date;
  /**
   * The consumer of this queue from before consumers were named per session incarnation: a
   * consumer made now takes over where it stands (its ack floor), so an upgrade loses nothing.
   */
  readonly adoptFrom?: string;
}

export interface WebhookQueueDeps {
  readonly nc: NatsConnection;
  readonly attempts: AttemptContext;
  readonly log: Logger;
  readonly guard: ForgedEventGuard;
  readonly ackWaitMs: number;
  /** The webhook as configured now; null once it is gone. */
  readonly targetOf: (session: string, targetId: string) => ResourceWebhookConfig | null;
  /** Consumer creation at start-up goes through here, so a thousand queues do not ask at once. */
  readonly opening: <T>(task: () => Promise<T>) => Promise<T>;
}

/**
 * One webhook's view of one session's events: a durable consumer on `sb.evt.<session>.>` with
 * `max_ack_pending` 1. The server hands out its next event only once the previous one is acked,
 * whichever replica holds it, so the webhook sees the session's events in stream order, one
 * request at a time. Every replica pulls from every queue; if the one holding an event dies, the
 * server gives it to another after the ack wait. A dead receiver holds only its own queue.
 */
export class WebhookQueue {
  private readonly stopping = new AbortController();
  private messages: ConsumerMessages | null = null;
  private readonly loop: Promise<void>;
  /**
   * Where a consumer made again starts, should it disappear (deleted by a replica whose cache was
   * behind): at the last event this queue acked, sent again rather than anything lost.
   */
  private resumeAt: Date;

  constructor(
    private readonly deps: WebhookQueueDeps,
    readonly spec: QueueSpec,
  ) {
    this.resumeAt = spec.startTime;
    this.loop = this.run();
  }

  /** Stops pulling and hands the event in progress back (nak), so another replica goes on at once. */
  async stop(): Promise<void> {
    this.stopping.abort();
    void this.messages?.close();
    await this.loop;
  }

  private async run(): Promise<void> {
    const { signal } = this.stopping;
    while (!signal.aborted && !this.deps.nc.isClosed()) {
      try {
        const consumer = await this.deps.opening(async () => {
          await this.ensureConsumer();
          return this.deps.nc.jetstream().consumers.get(STREAMS.events, this.spec.name);
        });
        if (signal.aborted) break;
        // One at a time: the server would not hand out a second before the ack anyway. Each pull
        // lives no longer than the ack wait: a replica cut off from NATS leaves its waiting pull on
        // the server, which would hand the next event to it, to come back only after the ack wait.
        this.messages = await consumer.consume({ max_messages: 1, expires: pullExpiryMs(this.deps.ackWaitMs), abort_on_missing_resource: true });
        for await (const msg of this.messages) {
          await this.handle(msg);
          this.resumeAt = new Date(Math.max(this.resumeAt.getTime(), msg.info.timestampNanos / 1e6));
          if (signal.aborted) break;
        }
      } catch (error) {
        if (signal.aborted || this.deps.nc.isClosed()) break;
        this.deps.log.warn({ err: error, consumer: this.spec.name }, 'webhook queue stopped pulling; again in 1 s');
      } finally {
        this.messages = null;
      }
      await sleep(1_000, undefined, { signal }).catch(() => undefined);
    }
  }

  /** Never rejects: every way out acks, naks or terms the message. */
  private async handle(msg: JsMsg): Promise<void> {
    const event = this.deps.guard.read(msg.subject, msg.data, 'webhook-queue');
    if (event === 'invalid')
      this.deps.log.error({ subject: msg.subject, seq: msg.seq }, 'message on the events stream is not an event envelope; dropped');
    if (event === 'invalid' || event === 'forged') {
      settle(() => msg.term());
      return;
    }
    const { session, targetId } = this.spec;
    const target = this.deps.targetOf(session, targetId);
    // A webhook gone, or one that does not want this event: nothing to send, next.
    if (!target || !webhookWants(target.events, event.envelope.event)) {
      settle(() => msg.ack());
      return;
    }
    const { envelope } = event;
    const bury = (gaveUp: GivenUp) =>
      storeDeadLetter(
        this.deps.nc,
        { eventId: envelope.id, session, event: envelope.event, url: target.url, webhook: targetId, ...gaveUp, deadAt: Date.now(), envelope },
        `${envelope.id}.${targetId}`,
        this.deps.log,
      );
    // Disabled by its receiver (410 Gone): the event is kept as dead, unsent, for a replay once enabled.
    if (this.deps.attempts.states?.isDisabled(session, target.url)) {
      await bury({ attempts: 0, lastError: 'gone' });
      settle(() => msg.ack());
      return;
    }
    const stopKeepAlive = keepAlive(() => msg.working(), this.deps.ackWaitMs);
    try {
      const gaveUp = await deliverWithRetries(this.deps.attempts, target, event, this.stopping.signal);
      if (gaveUp) {
        await bury(gaveUp);
        if (gaveUp.lastError === 'gone') await disableGone(this.deps.attempts, session, target.url);
      }
      settle(() => msg.ack());
    } catch {
      // Only a stop gets here: another replica takes the event, from its first attempt.
      settle(() => msg.nak());
    } finally {
      stopKeepAlive();
    }
  }

  /**
   * A queue made with another ack wait (an earlier version's 30 s, or another setting) gets this
   * one. nats-server before 2.10.12 refuses any update of a consumer that starts at a time ("start
   * time can not be updated", nats-server#5127): the queue then keeps its ack wait and delivers
   * as before, and the log says so.
   */
  private async updateAckWait(was: number | undefined): Promise<void> {
    const jsm = await this.deps.nc.jetstreamManager();
    try {
      await jsm.consumers.update(STREAMS.events, this.spec.name, { ack_wait: nanos(this.deps.ackWaitMs) });
    } catch (error) {
      this.deps.log.warn(
        { err: error, consumer: this.spec.name, ackWaitMs: was === undefined ? undefined : was / 1e6 },
        'webhook queue keeps the ack wait it was made with: the NATS server refused to change it',
      );
    }
  }

  /**
   * Creates the consumer when missing. Replicas race to do so with different start times; the
   * one made first wins and keeps its position, which is all the losers need.
   */
  private async ensureConsumer(): Promise<void> {
    const jsm = await this.deps.nc.jetstreamManager();
    const existing = await jsm.consumers.info(STREAMS.events, this.spec.name).catch(() => null);
    if (existing) {
      if (existing.config.ack_wait !== nanos(this.deps.ackWaitMs)) await this.updateAckWait(existing.config.ack_wait);
      return;
    }
    const filter = SUBJECTS.sessionEvents(this.spec.session);
    const adopted = this.spec.adoptFrom === undefined ? null : await jsm.consumers.info(STREAMS.events, this.spec.adoptFrom).catch(() => null);
    const start =
      adopted && adopted.config.filter_subject === filter
        ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: adopted.ack_floor.stream_seq + 1 }
        : { deliver_policy: DeliverPolicy.StartTime, opt_start_time: this.resumeAt.toISOString() };
    try {
      await jsm.consumers.add(STREAMS.events, {
        durable_name: this.spec.name,
        description: `webhook ${this.spec.targetId} of session ${this.spec.session}`,
        ack_policy: AckPolicy.Explicit,
        ack_wait: nanos(this.deps.ackWaitMs),
        max_ack_pending: 1,
        max_deliver: -1,
        ...start,
        filter_subject: filter,
      });
    } catch (error) {
      if (!(await jsm.consumers.info(STREAMS.events, this.spec.name).catch(() => null))) throw error;
    }
  }
}
