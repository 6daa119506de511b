import type { OutboundPolicy } from '@switchboard/kube';
import { type ResourceWebhookConfig, type SecretKeySelector, STREAMS } from '@switchboard/protocol';
import type { Logger } from 'pino';
import type { NatsConnection } from 'nats';
import { type DeliveryObserver, NO_DELIVERY_OBSERVER } from '../webhooks/delivery-observer.js';
import type { DeliveryCounters } from '../webhooks/delivery-observer.js';
import { type CircuitSettings, EndpointCircuits } from '../webhooks/endpoint-circuit.js';
import { WebhookSender } from '../webhooks/http-delivery.js';
import type { WebhookStates } from '../webhooks/ports.js';
import type { AttemptContext } from './delivery-attempts.js';
import { ensureGatewayStreams } from './event-source.js';
import type { ForgedEventGuard } from './forged-events.js';
import { ReplayWorker } from './replay-worker.js';
import { Slots } from './slots.js';
import { QUEUE_CONSUMER_PREFIX, queueConsumerName, webhookTargets } from './webhook-targets.js';
import { type QueueSpec, WEBHOOK_ACK_WAIT_MS, WebhookQueue } from './webhook-queue.js';
import { resolveWebhook } from './webhook-secrets.js';
import { SecretUnavailable } from './session-secrets.js';

const noSecrets = (ref: SecretKeySelector) => Promise.reject(new SecretUnavailable(`no Secrets are read here (Secret '${ref.name}')`));

export interface WebhookWorkerOptions {
  readonly nc: NatsConnection;
  readonly log: Logger;
  /** Drops (and counts) events whose body names another session than their subject. */
  readonly guard: ForgedEventGuard;
  /** Every session's name; undefined while not known yet (the session cache is not synced). */
  readonly sessions: () => readonly string[] | undefined;
  /**
   * The current incarnation of a session (its resource's uid). Queues are per incarnation: a
   * session deleted and made again, even in one change seen here, gets new queues starting at
   * that moment, and the old ones stop, their events (waiting, or retrying in memory) unsent.
   */
  readonly incarnationOf?: (session: string) => string | undefined;
  /** Registers a call for each change of the sessions or their config; returns the unsubscribe. */

  readonly onSessionsChange?: (listener: () => void) => () => void;
  /** The session's current `config.webhooks`. */
  readonly webhooksOf: (session: string) => readonly ResourceWebhookConfig[];
  readonly globalHook: ResourceWebhookConfig | null;
  /** The value of a Secret's key a webhook names (`SessionSecrets.value`); none can be read when left out. */
  readonly secretValue?: (ref: SecretKeySelector) => Promise<string>;
  readonly observer?: DeliveryObserver;
  /** Per HTTP request, until the response status arrives. */
  readonly timeoutMs?: number;
  /** Where deliveries may connect; default: the built-in rules only. */
  readonly policy?: OutboundPolicy;
  /** An event not acked, and not reported as in progress, for this long goes to another replica (default `WEBHOOK_ACK_WAIT_MS`). */
  readonly ackWaitMs?: number;
  /** HTTP requests in flight at once from this replica, over all webhooks (default `DELIVERY_CONCURRENCY`). */
  readonly concurrency?: number;
  /** How often the queues are checked against the sessions even without a change. */
  readonly resyncMs?: number;
  /** How long a queue's consumer must be unwanted here before this replica deletes it. */
  readonly deleteAfterMs?: number;
  /** When a failing endpoint is probed instead of sent to (`endpoint-circuit.ts`). */
  readonly circuit?: Partial<CircuitSettings>;
  /** Webhooks a 410 Gone disabled: their events go dead unsent. Without, a 410 only ends its delivery. */
  readonly states?: WebhookStates;
}

/**
 * HTTP requests in flight at once from one replica. Each queue has at most one event in flight
 * already, so this only bounds the sockets; but it also bounds the deliveries a second to itself
 * over the receivers' answer time. At 64, a thousand sessions' webhooks on a receiver answering in
 * 80 ms got at most 800 a second, and the queues grew behind it.
 */
const DELIVERY_CONCURRENCY = 256;

/** Events made this long before a replica saw a new webhook still reach it: the informer lags a little. */
const START_MARGIN_MS = 2_000;

/**
 * Cluster mode's webhook delivery. Each (session, webhook) is a queue: a durable consumer of its
 * own on SB_EVENTS that hands out one event at a time (`webhook-queue.ts`). Every replica runs
 * every queue, so whichever replica is free takes the next event, and one that dies leaves its
 * event to the others. The queues follow the sessions' config: a new webhook gets a queue, one
 * that is gone loses it. Replays of dead deliveries run beside, in `ReplayWorker`.
 *
 * Guarantees, and their limits (docs/events.md):
 * - At least once: an event is acked after its 2xx or its dead letter. A replica that dies
 *   mid-delivery never acks; after the ack wait another replica sends the event again, from its
 *   first attempt. The envelope `id` is the receiver's dedup key.
 * - Order per (session, webhook): stream order, one event in flight. A replica that stalls
 *   longer than the ack wait without reporting progress can break it, once.
 * - A dead or slow receiver holds its own queue only. Its events wait in the stream, costing
 *   no memory here.
 */
export class JetStreamWebhookWorker {
  readonly counters: DeliveryCounters = { succeeded: 0, retried: 0, dead: 0 };

  private readonly queues = new Map<string, WebhookQueue>();
  /** Where each queue's consumer starts when made here, by consumer name. */
  private readonly startTimes = new Map<string, Date>();
  /** The incarnation each (session, webhook) queue was last wanted for, by its name without one. */
  private readonly incarnations = new Map<string, string | undefined>();
  private readonly unwantedSince = new Map<string, number>();
  private readonly attempts: AttemptContext;
  private readonly opening = new Slots(16);
  private readonly ackWaitMs: number;
  private replays: ReplayWorker | null = null;
  private unsubscribe: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private syncing: Promise<void> | null = null;
  private syncAgain = false;
  /** Whether the next pass also deletes the consumers nobody wants. */
  private collect = false;
  private stopped = false;

  private constructor(private readonly options: WebhookWorkerOptions) {
    this.ackWaitMs = options.ackWaitMs ?? WEBHOOK_ACK_WAIT_MS;
    this.attempts = {
      sender: new WebhookSender({ timeoutMs: options.timeoutMs, policy: options.policy }),
      requests: new Slots(options.concurrency ?? DELIVERY_CONCURRENCY),
      circuits: new EndpointCircuits(options.circuit),
      log: options.log,
      observer: options.observer ?? NO_DELIVERY_OBSERVER,
      counters: this.counters,
      resolve: (target) => resolveWebhook(target, options.secretValue ?? noSecrets),
      ...(options.states ? { states: options.states } : {}),
    };
  }

  /** Makes sure the streams exist, starts the queues of the sessions known now, then follows changes. */
  static async start(options: WebhookWorkerOptions): Promise<JetStreamWebhookWorker> {
    await ensureGatewayStreams(options.nc);
    const worker = new JetStreamWebhookWorker(options);
    worker.replays = await ReplayWorker.start({
      nc: options.nc,
      attempts: worker.attempts,
      webhooksOf: options.webhooksOf,
      globalHook: options.globalHook,
      ackWaitMs: worker.ackWaitMs,
    });
    // sync() logs its own failure and never rejects: nothing to wait for in a callback.
    worker.unsubscribe = options.onSessionsChange?.(() => void worker.sync());
    worker.timer = setInterval(() => void worker.sync(true), options.resyncMs ?? 30_000);
    worker.timer.unref();
    await worker.sync(true);
    return worker;
  }

  /** The queues this replica runs, by consumer name. */
  get queueNames(): string[] {
    return [...this.queues.keys()];
  }

  /** Takes no new events and hands back (nak) those in progress, so another replica goes on at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    clearInterval(this.timer);
    await this.syncing;
    await Promise.all([...this.queues.values()].map((queue) => queue.stop()));
    this.queues.clear();
    await this.replays?.stop();
    this.attempts.sender.close();
  }

  /**
   * Brings the queues in line with the sessions (and with `collect`, deletes the consumers nobody
   * wants); one pass at a time, a change meanwhile runs another.
   */
  sync(collect = false): Promise<void> {
    this.collect ||= collect;
    if (this.syncing) {
      this.syncAgain = true;
      return this.syncing;
    }
    this.syncing = (async () => {
      try {
        do {
          this.syncAgain = false;
          const collecting = this.collect;
          this.collect = false;
          await this.reconcile(collecting);
        } while (this.syncAgain && !this.stopped);
      } catch (error) {
        this.options.log.error({ err: error }, 'webhook queues not brought up to date; trying again at the next change');
      } finally {
        this.syncing = null;
      }
    })();
    return this.syncing;
  }

  private async reconcile(collect: boolean): Promise<void> {
    const wanted = this.wantedQueues();
    if (!wanted || this.stopped) return;
    for (const [name, spec] of wanted) {
      if (!this.queues.has(name)) this.queues.set(name, new WebhookQueue(this.queueDeps(), spec));
    }
    const gone = [...this.queues].filter(([name]) => !wanted.has(name));
    for (const [name] of gone) this.queues.delete(name);
    await Promise.all(gone.map(([, queue]) => queue.stop()));
    if (collect) await this.deleteUnwantedConsumers(wanted);
  }

  private wantedQueues(): Map<string, QueueSpec> | undefined {
    const sessions = this.options.sessions();
    if (!sessions) return undefined;
    const now = Date.now();
    const wanted = new Map<string, QueueSpec>();
    const bases = new Set<string>();
    for (const session of sessions) {
      const incarnation = this.options.incarnationOf?.(session);
      webhookTargets(this.options.webhooksOf(session), this.options.globalHook).forEach((target) => {
        const base = queueConsumerName(session, target.id);
        const name = queueConsumerName(session, target.id, incarnation);
        // A session made again under the name, seen here: its queue starts now, not a margin
        // back, which would hand it the last events of the one before.
        const replaced = this.incarnations.has(base) && this.incarnations.get(base) !== incarnation;
        if (!this.startTimes.has(name)) this.startTimes.set(name, new Date(replaced ? now : now - START_MARGIN_MS));
        this.incarnations.set(base, incarnation);
        bases.add(base);
        const adoptFrom = incarnation === undefined || replaced ? undefined : base;
        wanted.set(name, { name, session, targetId: target.id, startTime: this.startTimes.get(name)!, ...(adoptFrom ? { adoptFrom } : {}) });
      });
    }
    for (const name of this.startTimes.keys()) if (!wanted.has(name)) this.startTimes.delete(name);
    for (const base of this.incarnations.keys()) if (!bases.has(base)) this.incarnations.delete(base);
    return wanted;
  }

  private queueDeps() {
    return {
      nc: this.options.nc,
      attempts: this.attempts,
      log: this.options.log,
      guard: this.options.guard,
      ackWaitMs: this.ackWaitMs,
      targetOf: (session: string, targetId: string) =>
        webhookTargets(this.options.webhooksOf(session), this.options.globalHook).find((t) => t.id === targetId)?.config ?? null,
      opening: <T>(task: () => Promise<T>) => this.opening.run(task),
    };
  }

  /**
   * Deletes the consumers of webhooks and sessions that are gone, once this replica has not
   * wanted them for `deleteAfterMs`: long enough that a replica whose cache is a moment behind
   * another's never deletes a queue the other just made.
   */
  private async deleteUnwantedConsumers(wanted: Map<string, QueueSpec>): Promise<void> {
    const jsm = await this.options.nc.jetstreamManager();
    const now = Date.now();
    const present = new Set<string>();
    for await (const info of jsm.consumers.list(STREAMS.events)) {
      const { name } = info;
      if (!name.startsWith(QUEUE_CONSUMER_PREFIX) || wanted.has(name)) continue;
      present.add(name);
      const since = this.unwantedSince.get(name) ?? now;
      this.unwantedSince.set(name, since);
      if (now - since >= (this.options.deleteAfterMs ?? 60_000)) {
        await jsm.consumers.delete(STREAMS.events, name).catch(() => undefined);
        this.options.log.info({ consumer: name }, 'webhook queue of a removed webhook deleted');
      }
    }
    for (const name of this.unwantedSince.keys()) if (!present.has(name)) this.unwantedSince.delete(name);
  }
}
