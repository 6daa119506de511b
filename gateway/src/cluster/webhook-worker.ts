import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { STREAMS, SUBJECTS, type WebhookConfig, webhookWants } from '@switchboard/protocol';
import type { Logger } from 'pino';
import {
  AckPolicy,
  type Consumer,
  type ConsumerMessages,
  DeliverPolicy,
  type JetStreamManager,
  type JsMsg,
  type NatsConnection,
  nanos,
} from 'nats';
import type { PublishedEvent } from '../events/event-bus.js';
import type { DeliveryCounters } from '../webhooks/dispatcher.js';
import { retryAfterFailure, WebhookSender } from '../webhooks/http-delivery.js';
import { DEAD_LETTERS, ensureGatewayStreams, parseEvent } from './event-source.js';

/** The one durable consumer all gateway replicas pull webhook work from. */
export const WEBHOOK_CONSUMER = 'gateway-webhooks';

export interface WebhookWorkerOptions {
  readonly nc: NatsConnection;
  readonly log: Logger;
  /** The session's current `config.webhooks`, read per event so edits apply to the next event. */
  readonly webhooksOf: (session: string) => readonly WebhookConfig[];
  readonly globalHook: WebhookConfig | null;
  /** Per HTTP request, until the response status arrives. */
  readonly timeoutMs?: number;
  /** An event not acked, and not reported as in progress, for this long goes to another replica. */
  readonly ackWaitMs?: number;
  /** Events this replica holds at once (delivering, or waiting to retry). */
  readonly maxEventsInProgress?: number;
  /** HTTP requests in flight at once from this replica, over all webhooks. */
  readonly concurrency?: number;
  /** Events handed out and not yet acked, over all replicas: the server hands out no more. */
  readonly maxAckPending?: number;
  /** How long one pull waits for events before the next pull. */
  readonly pullExpiresMs?: number;
}

interface DeadDelivery {
  readonly target: WebhookConfig;
  readonly attempts: number;
  readonly lastError: string;
}

/**
 * Cluster mode's webhook delivery: every replica pulls from the durable consumer
 * `gateway-webhooks` on the events stream, so each event goes to one replica at a time. That
 * replica posts it to each webhook that wants it (the session's and the global one) with the
 * signing, headers and retry schedule of local mode, reports progress to the server while it
 * retries, and acks once every webhook has it or has used up its attempts. A delivery that dies
 * is published to `sb.dead.<session>` (stream SB_DEAD) and logged.
 *
 * Guarantees:
 * - At least once. A replica that dies mid-delivery never acks; after the ack wait the server
 *   hands the event to another replica, which delivers it to every webhook again from the first
 *   attempt. A receiver may see an event twice; the envelope `id` is the dedup key.
 * - No order, yet. Events are handed out in stream order, but each replica delivers many at once
 *   and several replicas pull side by side, so two events of one session may reach a webhook in
 *   either order, and a retried event does not hold back later ones. Envelope ids sort in the
 *   order a session made its events: a receiver that needs order sorts by `id`.
 * - A webhook that is down holds its events (one slot each of `maxEventsInProgress`, no request)
 *   for up to its whole retry schedule; other webhooks are not held up until those slots run out.
 */
export class JetStreamWebhookWorker {
  readonly counters: DeliveryCounters = { succeeded: 0, retried: 0, dead: 0 };

  private readonly sender: WebhookSender;
  private readonly requests: Slots;
  private readonly inProgress = new Set<Promise<void>>();
  private readonly stopping = new AbortController();
  private readonly ackWaitMs: number;
  private readonly maxEventsInProgress: number;
  private batch: ConsumerMessages | null = null;
  private loop: Promise<void> = Promise.resolve();

  private constructor(
    private readonly options: WebhookWorkerOptions,
    private readonly consumer: Consumer,
  ) {
    this.sender = new WebhookSender({ timeoutMs: options.timeoutMs });
    this.requests = new Slots(options.concurrency ?? 64);
    this.ackWaitMs = options.ackWaitMs ?? 30_000;
    this.maxEventsInProgress = options.maxEventsInProgress ?? 512;
  }

  /** Makes sure the streams and the shared consumer exist, then starts pulling. */
  static async start(options: WebhookWorkerOptions): Promise<JetStreamWebhookWorker> {
    await prepare(options);
    const consumer = await options.nc.jetstream().consumers.get(STREAMS.events, WEBHOOK_CONSUMER);
    const worker = new JetStreamWebhookWorker(options, consumer);
    worker.loop = worker.pull();
    return worker;
  }

  /**
   * Takes no new events, abandons the deliveries in progress and hands their events back (nak),
   * so another replica takes them at once instead of after the ack wait.
   */
  async stop(): Promise<void> {
    this.stopping.abort();
    void this.batch?.close();
    await this.loop;
    await Promise.all(this.inProgress);
  }

  private async pull(): Promise<void> {
    const { signal } = this.stopping;
    while (!signal.aborted && !this.options.nc.isClosed()) {
      const room = this.maxEventsInProgress - this.inProgress.size;
      if (room <= 0) {
        await Promise.race(this.inProgress);
        continue;
      }
      try {
        this.batch = await this.consumer.fetch({ max_messages: room, expires: this.options.pullExpiresMs ?? 5_000 });
        for await (const msg of this.batch) {
          if (signal.aborted) settle(() => msg.nak());
          else this.track(this.handle(msg));
        }
      } catch (error) {
        if (signal.aborted || this.options.nc.isClosed()) break;
        this.options.log.warn({ err: error }, 'pulling webhook events failed; pulling again in 1 s');
        await sleep(1_000, undefined, { signal }).catch(() => undefined);
        // Someone may have deleted the consumer or the stream: put them back before the next pull.
        await prepare(this.options).catch(() => undefined);
      } finally {
        this.batch = null;
      }
    }
  }

  private track(handling: Promise<void>): void {
    this.inProgress.add(handling);
    void handling.finally(() => this.inProgress.delete(handling));
  }

  /** Never rejects: every way out acks, naks or terms the message. */
  private async handle(msg: JsMsg): Promise<void> {
    const event = parseEvent(msg.data);
    if (!event) {
      this.options.log.error({ subject: msg.subject, seq: msg.seq }, 'message on the events stream is not an event envelope; dropped');
      settle(() => msg.term());
      return;
    }
    const targets = this.targetsOf(event);
    if (targets.length === 0) {
      settle(() => msg.ack());
      return;
    }
    // Well inside the ack wait, so a slow receiver or a long retry wait never looks like a dead replica.
    const progress = setInterval(() => settle(() => msg.working()), Math.max(100, this.ackWaitMs / 3));
    try {
      const dead = await Promise.all(targets.map((target) => this.deliver(target, event)));
      for (const delivery of dead) if (delivery) await this.bury(event, delivery);
      settle(() => msg.ack());
    } catch {
      // Only a stop gets here (deliveries never fail otherwise): another replica takes it from the start.
      settle(() => msg.nak());
    } finally {
      clearInterval(progress);
    }
  }

  private targetsOf({ envelope }: PublishedEvent): WebhookConfig[] {
    const targets = this.options.webhooksOf(envelope.session).filter((hook) => webhookWants(hook.events, envelope.event));
    const { globalHook } = this.options;
    if (globalHook && webhookWants(globalHook.events, envelope.event)) targets.push(globalHook);
    return targets;
  }

  /** All attempts for one webhook. Resolves null once delivered, or the dead delivery; rejects when stopping. */
  private async deliver(target: WebhookConfig, event: PublishedEvent): Promise<DeadDelivery | null> {
    const { signal } = this.stopping;
    const { id: eventId, session } = event.envelope;
    for (let attempt = 1; ; attempt++) {
      const failure = await this.requests.run(() => this.sender.send(target, event.json, signal));
      signal.throwIfAborted();
      if (failure === null) {
        this.counters.succeeded++;
        return null;
      }
      const context = { session, eventId, url: target.url, attempt, reason: failure };
      const delayMs = retryAfterFailure(target.retries, attempt);
      if (delayMs === null) {
        this.counters.dead++;
        this.options.log.warn(context, 'webhook delivery dead after its last attempt');
        return { target, attempts: attempt, lastError: failure };
      }
      this.counters.retried++;
      this.options.log.debug({ ...context, retryInMs: delayMs }, 'webhook delivery failed; will retry');
      await sleep(delayMs, undefined, { signal });
    }
  }

  /**
   * Keeps a dead delivery where it can be inspected and replayed. The letter names the webhook
   * by URL only: its HMAC key and custom headers are secrets. The message id makes a second
   * letter for the same (event, webhook), after a redelivery, a duplicate the stream drops.
   * A letter that cannot be stored is logged instead: handing the event back would send it
   * again to the webhooks that did take it, and fail the same way after hours of retries.
   */
  private async bury(event: PublishedEvent, dead: DeadDelivery): Promise<void> {
    const { id: eventId, session, event: name } = event.envelope;
    const summary = { eventId, session, event: name, url: dead.target.url, attempts: dead.attempts, lastError: dead.lastError };
    const letter = JSON.stringify({ ...summary, deadAt: Date.now(), envelope: event.envelope });
    const webhook = createHash('sha256').update(JSON.stringify(dead.target)).digest('hex').slice(0, 12);
    const publish = () => this.options.nc.jetstream().publish(DEAD_LETTERS.subject(session), letter, { msgID: `${eventId}.${webhook}` });
    try {
      await publish().catch(async () => {
        await ensureGatewayStreams(this.options.nc);
        return publish();
      });
    } catch (error) {
      this.options.log.error({ ...summary, err: error }, 'dead webhook delivery not stored in SB_DEAD');
    }
  }
}

/** The streams and the shared consumer, created when missing. */
async function prepare(options: WebhookWorkerOptions): Promise<void> {
  await ensureGatewayStreams(options.nc);
  await ensureWebhookConsumer(await options.nc.jetstreamManager(), options.ackWaitMs ?? 30_000, options.maxAckPending ?? 4_096);
}

/**
 * Creates the shared consumer, or brings the settings that may change (ack wait, ack pending)
 * to this replica's. It starts at the stream's first event, so events published before any
 * gateway ran are delivered too.
 */
async function ensureWebhookConsumer(jsm: JetStreamManager, ackWaitMs: number, maxAckPending: number): Promise<void> {
  const changeable = { ack_wait: nanos(ackWaitMs), max_ack_pending: maxAckPending };
  try {
    await jsm.consumers.add(STREAMS.events, {
      durable_name: WEBHOOK_CONSUMER,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      filter_subject: SUBJECTS.allEvents,
      max_deliver: -1,
      ...changeable,
    });
  } catch (error) {
    const existing = await jsm.consumers.info(STREAMS.events, WEBHOOK_CONSUMER).catch(() => null);
    if (!existing) throw error;
    await jsm.consumers.update(STREAMS.events, WEBHOOK_CONSUMER, changeable);
  }
}

/** Ack, nak and progress reports go out on the connection; a closed one only means the server redelivers. */
function settle(report: () => void): void {
  try {
    report();
  } catch {
    // The message stays un-acked on the server and comes back after the ack wait: at least once.
  }
}

/** At most `size` tasks at once; the others wait in arrival order. */
class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(size: number) {
    this.free = size;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}
