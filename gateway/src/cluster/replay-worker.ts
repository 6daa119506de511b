import type { ResourceWebhookConfig } from '@switchboard/protocol';
import { AckPolicy, type Consumer, type ConsumerMessages, type JsMsg, type NatsConnection, nanos } from 'nats';
import { DEAD_LETTERS, ensureGatewayStreams, REPLAYS } from './event-source.js';
import { type DeadLetter, type ReplayOrder, storeDeadLetter } from './dead-letters.js';
import { type AttemptContext, deliverWithRetries, disableGone, keepAlive, settle } from './delivery-attempts.js';

/** The durable consumer all replicas pull replay orders from. */
export const REPLAY_CONSUMER = 'gateway-replays';

export interface ReplayWorkerOptions {
  readonly nc: NatsConnection;
  readonly attempts: AttemptContext;
  readonly webhooksOf: (session: string) => readonly ResourceWebhookConfig[];
  readonly globalHook: ResourceWebhookConfig | null;
  readonly ackWaitMs: number;
  /** Replays this replica runs at once. */
  readonly maxInProgress?: number;
}

/**
 * Delivers the replays the dead-delivery API queued (SB_REPLAY), on any replica, each with a
 * fresh retry schedule, to the session's webhook with the letter's url as configured now.
 * Delivered: the dead letter is removed. Dead again: a new letter replaces it. The order is
 * acked only after that, so a replica dying mid-replay leaves it to another one.
 */
export class ReplayWorker {
  private readonly stopping = new AbortController();
  private readonly inProgress = new Set<Promise<void>>();
  private batch: ConsumerMessages | null = null;
  private loop: Promise<void> = Promise.resolve();

  private constructor(
    private readonly options: ReplayWorkerOptions,
    private readonly consumer: Consumer,
  ) {}

  static async start(options: ReplayWorkerOptions): Promise<ReplayWorker> {
    await prepare(options);
    const worker = new ReplayWorker(options, await options.nc.jetstream().consumers.get(REPLAYS.stream, REPLAY_CONSUMER));
    worker.loop = worker.pull();
    return worker;
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    void this.batch?.close();
    await this.loop;
    await Promise.all(this.inProgress);
  }

  private async pull(): Promise<void> {
    const { signal } = this.stopping;
    const max = this.options.maxInProgress ?? 64;
    while (!signal.aborted && !this.options.nc.isClosed()) {
      const room = max - this.inProgress.size;
      if (room <= 0) {
        await Promise.race(this.inProgress);
        continue;
      }
      try {
        this.batch = await this.consumer.fetch({ max_messages: room, expires: 5_000 });
        for await (const msg of this.batch) {
          if (signal.aborted) settle(() => msg.nak());
          else this.track(this.handle(msg));
        }
      } catch (error) {
        if (signal.aborted || this.options.nc.isClosed()) break;
        this.options.attempts.log.warn({ err: error }, 'pulling webhook replays failed; pulling again in 1 s');
        await new Promise((resolve) => setTimeout(resolve, 1_000));
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

  /** Never rejects: every way out acks or naks the order. */
  private async handle(msg: JsMsg): Promise<void> {
    const { deadSeq, letter } = msg.json<ReplayOrder>();
    const { envelope } = letter;
    const hooks = this.options.webhooksOf(letter.session);
    const target = hooks.find((hook) => hook.url === letter.url) ?? (this.options.globalHook?.url === letter.url ? this.options.globalHook : null);
    if (!target) {
      // The webhook went away after the replay was asked for: the letter stays, as the API said it would.
      settle(() => msg.ack());
      return;
    }
    // Its webhook disabled by a 410 Gone: the letter stays dead, unsent, as local mode keeps it.
    if (this.options.attempts.states?.isDisabled(letter.session, target.url)) {
      settle(() => msg.ack());
      return;
    }
    const stopKeepAlive = keepAlive(() => msg.working(), this.options.ackWaitMs);
    try {
      const gaveUp = await deliverWithRetries(this.options.attempts, target, { envelope, json: JSON.stringify(envelope) }, this.stopping.signal);
      if (gaveUp) {
        const again: DeadLetter = { ...letter, attempts: gaveUp.attempts, lastError: gaveUp.lastError, deadAt: Date.now() };
        const stored = await storeDeadLetter(
          this.options.nc,
          again,
          `${letter.eventId}.${letter.webhook}.replay.${deadSeq}`,
          this.options.attempts.log,
        );
        if (stored) await this.remove(deadSeq);
        if (gaveUp.lastError === 'gone') await disableGone(this.options.attempts, letter.session, target.url);
      } else {
        await this.remove(deadSeq);
      }
      settle(() => msg.ack());
    } catch {
      settle(() => msg.nak());
    } finally {
      stopKeepAlive();
    }
  }

  private async remove(deadSeq: number): Promise<void> {
    const jsm = await this.options.nc.jetstreamManager();
    // Already gone (another replay of it, or its age) is as good as removed.
    await jsm.streams.deleteMessage(DEAD_LETTERS.stream, deadSeq, false).catch(() => undefined);
  }
}

async function prepare(options: ReplayWorkerOptions): Promise<void> {
  await ensureGatewayStreams(options.nc);
  const jsm = await options.nc.jetstreamManager();
  const config = { durable_name: REPLAY_CONSUMER, ack_policy: AckPolicy.Explicit, ack_wait: nanos(options.ackWaitMs), max_deliver: -1 };
  try {
    await jsm.consumers.add(REPLAYS.stream, config);
  } catch (error) {
    if (!(await jsm.consumers.info(REPLAYS.stream, REPLAY_CONSUMER).catch(() => null))) throw error;
  }
}
