import type { DeadDelivery, EventEnvelope, EventName, ReplayResult, ResourceWebhookConfig } from '@switchboard/protocol';
import type { Logger } from 'pino';
import type { NatsConnection, StoredMsg } from 'nats';
import type { DeadDeliveries } from '../webhooks/ports.js';
import { storedFailureReason } from '../webhooks/delivery-failure.js';
import { planReplay } from '../webhooks/replay-plan.js';
import { DEAD_LETTERS, ensureGatewayStreams, REPLAYS } from './event-source.js';
import { readSubject } from './stream-reader.js';

/**
 * A delivery that used up its attempts, as stored in SB_DEAD on `sb.dead.<session>`. It names
 * the webhook by url and target id only: its HMAC key and custom headers are secrets.
 */
export interface DeadLetter {
  readonly eventId: string;
  readonly session: string;
  readonly event: EventName;
  readonly url: string;
  /** The target id (`webhook-targets.ts`) of the queue it died in. */
  readonly webhook: string;
  readonly attempts: number;
  /** A DeliveryFailureReason; letters stored before the reasons were coarse hold the details (any string). */
  readonly lastError: string;
  readonly deadAt: number;
  readonly envelope: EventEnvelope;
}

/** A replay request on `sb.replay.<session>` (SB_REPLAY): the letter's sequence, so it can be removed once delivered. */
export interface ReplayOrder {
  readonly deadSeq: number;
  readonly letter: DeadLetter;
}

/**
 * Stores a letter. `msgId` makes a second letter for the same death (a redelivered event dying
 * again) a duplicate the stream drops. A letter that cannot be stored is logged instead:
 * handing the event back would send it again to receivers that took it, for hours of retries.
 */
export async function storeDeadLetter(nc: NatsConnection, letter: DeadLetter, msgId: string, log: Logger): Promise<boolean> {
  const publish = () => nc.jetstream().publish(DEAD_LETTERS.subject(letter.session), JSON.stringify(letter), { msgID: msgId });
  try {
    await publish().catch(async () => {
      await ensureGatewayStreams(nc);
      return publish();
    });
    return true;
  } catch (error) {
    const { envelope: _, ...summary } = letter;
    log.error({ ...summary, err: error }, 'dead webhook delivery not stored in SB_DEAD');
    return false;
  }
}

export interface StreamDeadDeliveriesDeps {
  readonly nc: NatsConnection;
  readonly webhooksOf: (session: string) => readonly ResourceWebhookConfig[];
  readonly globalHook: ResourceWebhookConfig | null;
}

/**
 * Cluster mode's dead deliveries: SB_DEAD, the stream sequence being the id. A replay publishes
 * one order per delivery to SB_REPLAY, where any replica's `ReplayWorker` takes it: a replay
 * survives the replica that accepted it.
 */
export class StreamDeadDeliveries implements DeadDeliveries {
  constructor(private readonly deps: StreamDeadDeliveriesDeps) {}

  async list(session: string, page: { limit: number; offset: number }): Promise<DeadDelivery[]> {
    const found: DeadDelivery[] = [];
    let skip = page.offset;
    await readSubject(this.deps.nc, DEAD_LETTERS.stream, DEAD_LETTERS.subject(session), undefined, (msg) => {
      if (skip > 0) skip--;
      else found.push(toDeadDelivery(msg.seq, msg.json<DeadLetter>()));
      return found.length < page.limit;
    });
    return found;
  }

  async replay(session: string, ids: readonly number[] | undefined): Promise<ReplayResult> {
    const letters = ids === undefined ? await this.allOf(session) : await this.byIds(session, ids);
    const dead = [...letters].map(([seq, letter]) => toDeadDelivery(seq, letter));
    const plan = planReplay(session, dead, ids, this.deps.webhooksOf(session), this.deps.globalHook);
    const js = this.deps.nc.jetstream();
    for (const {
      dead: { id },
    } of plan.replay) {
      const order: ReplayOrder = { deadSeq: id, letter: letters.get(id)! };
      // Two replays of one letter within the stream's duplicate window send it once.
      await js.publish(REPLAYS.subject(session), JSON.stringify(order), { msgID: `replay.${id}` });
    }
    return { replayed: plan.replay.map(({ dead: { id } }) => id), skipped: plan.skipped };
  }

  private async allOf(session: string): Promise<Map<number, DeadLetter>> {
    const letters = new Map<number, DeadLetter>();
    await readSubject(this.deps.nc, DEAD_LETTERS.stream, DEAD_LETTERS.subject(session), undefined, (msg) => {
      letters.set(msg.seq, msg.json<DeadLetter>());
      return true;
    });
    return letters;
  }

  /** The letters among `ids` that are the session's; the others are left for `planReplay` to refuse. */
  private async byIds(session: string, ids: readonly number[]): Promise<Map<number, DeadLetter>> {
    const jsm = await this.deps.nc.jetstreamManager();
    const letters = new Map<number, DeadLetter>();
    for (const seq of new Set(ids)) {
      const stored: StoredMsg | null = await jsm.streams.getMessage(DEAD_LETTERS.stream, { seq }).catch(() => null);
      if (stored?.subject === DEAD_LETTERS.subject(session)) letters.set(seq, stored.json<DeadLetter>());
    }
    return letters;
  }
}

export function toDeadDelivery(seq: number, letter: DeadLetter): DeadDelivery {
  return {
    id: seq,
    eventId: letter.eventId,
    event: letter.event,
    session: letter.session,
    url: letter.url,
    attempts: letter.attempts,
    lastError: storedFailureReason(letter.lastError),
    createdAt: letter.envelope.timestamp,
    deadAt: letter.deadAt,
  };
}
