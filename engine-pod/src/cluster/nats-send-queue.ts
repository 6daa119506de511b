import { JS_ERR, jsErrorCode, latestValues, openSendQueuesBucket, type StoreOptions } from '@switchboard/kube/pod';
import {
  SEND_QUEUE_KEYS,
  SendPairingRecord,
  type SendQueueRecord,
  SendQueueRecord as SendQueueRecordSchema,
  SENT_KEPT_MS,
  SentMinuteRecord,
} from '@switchboard/protocol';
import type { KV, NatsConnection } from 'nats';
import { MINUTE_MS, type SentSend } from '../sending/pacing.js';
import type { QueuedSendRow, SendQueueStore } from '../sending/send-queue-store.js';

export interface NatsSendQueueOptions extends StoreOptions {
  readonly session: string;
  /** The session lease's fencing token while this pod holds it, else null: no write goes without it. */
  readonly fencingToken: () => number | null;
}

/** A key's value as this pod last read or wrote it, with the revision its next write compares against. */
interface Kept<T> {
  value: T;
  revision: number;
}

/** Another pod wrote the session's keys, or this one no longer holds the lease: it must stop sending. */
export class SendQueueFenced extends Error {
  constructor(session: string, reason: string) {
    super(`send queue of session '${session}': ${reason}; this engine pod stops sending for it`);
    this.name = 'SendQueueFenced';
  }
}

/**
 * Cluster mode's send queue of one session, in NATS KV `sb_send_queues` (protocol
 * send-queue-records.ts): the engine pod's `SendPacer` store. It is read once, when the pod takes
 * the session's lease, and kept in memory; every change is written before it is answered, so the
 * next pod of the session finds the queue in its order. Reads answer at once from memory: the
 * pacer's pick and its `markSending` then happen without a cancel between them, as with SQLite.
 *
 * Writes go one at a time, each only while this pod holds the lease (its fencing token is in
 * every record), and by compare-and-set on the revision last seen: a pod that lost the lease
 * cannot overwrite what the next holder wrote (SendQueueFenced instead).
 */
export class NatsSendQueue implements SendQueueStore {
  private readonly queue = new Map<string, Kept<SendQueueRecord>>();
  /** Ids in queue order (ascending `seq`, which only grows). */
  private order: string[] = [];
  private readonly minutes = new Map<number, Kept<SentSend[]>>();
  private pairing: Kept<number> | null = null;
  private lastSeq = 0;
  private writes: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly kv: KV,
    private readonly options: NatsSendQueueOptions,
  ) {}

  static async open(nc: NatsConnection, options: NatsSendQueueOptions): Promise<NatsSendQueue> {
    const store = new NatsSendQueue(await openSendQueuesBucket(nc, options), options);
    await store.load();
    return store;
  }

  private get session(): string {
    return this.options.session;
  }

  /** The session's records as they are now: queue, the last two days' sends, the pairing date. */
  private async load(): Promise<void> {
    const { session } = this;
    for (const entry of await latestValues(this.kv, SEND_QUEUE_KEYS.allQueued(session), 'send queue')) {
      const record = SendQueueRecordSchema.parse(entry.json());
      this.queue.set(record.id, { value: record, revision: entry.revision });
      this.lastSeq = Math.max(this.lastSeq, record.seq);
    }
    this.order = [...this.queue.values()].sort((a, b) => a.value.seq - b.value.seq).map(({ value }) => value.id);
    for (const entry of await latestValues(this.kv, SEND_QUEUE_KEYS.allSent(session), 'recent sends')) {
      const minute = Number(entry.key.slice(entry.key.lastIndexOf('.') + 1));
      this.minutes.set(minute, { value: SentMinuteRecord.parse(entry.json()).sends, revision: entry.revision });
    }
    const pairing = await this.kv.get(SEND_QUEUE_KEYS.pairing(session));
    if (pairing?.operation === 'PUT') this.pairing = { value: SendPairingRecord.parse(pairing.json()).pairedAt, revision: pairing.revision };
  }

  add(row: QueuedSendRow): Promise<boolean> {
    if (row.session !== this.session || this.queue.has(row.id)) return Promise.resolve(false);
    return this.write(async (fencingToken) => {
      if (this.queue.has(row.id)) return false;
      const record: SendQueueRecord = {
        ...publicFields(row),
        command: row.command as SendQueueRecord['command'],
        seq: this.lastSeq + 1,
        fencingToken,
      };
      const revision = await this.cas(() => this.kv.create(SEND_QUEUE_KEYS.queued(this.session, row.id), JSON.stringify(record)));
      this.lastSeq = record.seq;
      this.queue.set(row.id, { value: record, revision });
      this.order.push(row.id);
      return true;
    });
  }

  count(): number {
    return this.queue.size;
  }

  list(_session: string, { limit, offset }: { readonly limit: number; readonly offset: number }): QueuedSendRow[] {
    return this.order.slice(offset, offset + limit).map((id) => rowOf(this.queue.get(id)!.value));
  }

  position(_session: string, id: string): number {
    return this.order.indexOf(id);
  }

  /** Marked in memory at once (a cancel from now on finds it `sending`), then written. */
  markSending(_session: string, id: string): Promise<void> {
    return this.setState(id, 'sending');
  }

  requeue(_session: string, id: string): Promise<void> {
    return this.setState(id, 'queued');
  }

  /** The queue's key first: a crash between the two writes loses a window entry, never sends twice. */
  async markSent(_session: string, id: string, sent: SentSend): Promise<void> {
    await this.remove(id);
    await this.write(async (fencingToken) => {
      const minute = Math.floor(sent.at / MINUTE_MS);
      const kept = this.minutes.get(minute);
      const sends = [...(kept?.value ?? []), { chatId: sent.chatId, at: sent.at }];
      const value = JSON.stringify({ sends, fencingToken } satisfies SentMinuteRecord);
      const key = SEND_QUEUE_KEYS.sentMinute(this.session, minute);
      const revision = await this.cas(() => (kept ? this.kv.update(key, value, kept.revision) : this.kv.create(key, value)));
      this.minutes.set(minute, { value: sends, revision });
      if (!kept) await this.prune(sent.at - SENT_KEPT_MS);
    });
  }

  drop(_session: string, id: string): Promise<void> {
    return this.remove(id);
  }

  cancel(_session: string, id: string): Promise<boolean> {
    if (this.queue.get(id)?.value.state !== 'queued') return Promise.resolve(false);
    return this.remove(id).then(() => true);
  }

  sessionsWithSends(): string[] {
    return this.queue.size > 0 ? [this.session] : [];
  }

  inFlight(): QueuedSendRow[] {
    return this.order
      .map((id) => this.queue.get(id)!.value)
      .filter((record) => record.state === 'sending')
      .map(rowOf);
  }

  depths(): Map<string, number> {
    return new Map([[this.session, this.queue.size]]);
  }

  recentSends(_session: string, since: number): SentSend[] {
    return [...this.minutes.values()].flatMap(({ value }) => value.filter((send) => send.at >= since));
  }

  pairedAt(): number | null {
    return this.pairing?.value ?? null;
  }

  /** Recorded once: a pairing date already there stays (KV create). */
  setPairedAt(_session: string, at: number): Promise<void> {
    if (this.pairing) return Promise.resolve();
    return this.write(async (fencingToken) => {
      if (this.pairing) return;
      const value = JSON.stringify({ pairedAt: at, fencingToken } satisfies SendPairingRecord);
      const revision = await this.cas(() => this.kv.create(SEND_QUEUE_KEYS.pairing(this.session), value));
      this.pairing = { value: at, revision };
    });
  }

  /** A logout: the next pairing is a new account, whose warm-up starts again. */
  forgetPairing(): Promise<void> {
    return this.write(async () => {
      const pairing = this.pairing;
      if (!pairing) return;
      await this.cas(() => this.kv.delete(SEND_QUEUE_KEYS.pairing(this.session), { previousSeq: pairing.revision }));
      this.pairing = null;
    });
  }

  /** The gateway purges a deleted session's keys (kube's purgeSessionSendQueue); its pod has nothing more to do. */
  forgetSession(): void {}

  private setState(id: string, state: SendQueueRecord['state']): Promise<void> {
    const kept = this.queue.get(id);
    if (!kept) return Promise.resolve();
    kept.value = { ...kept.value, state };
    return this.write(async (fencingToken) => {
      const current = this.queue.get(id);
      if (!current) return;
      const record = { ...current.value, fencingToken };
      current.revision = await this.cas(() => this.kv.update(SEND_QUEUE_KEYS.queued(this.session, id), JSON.stringify(record), current.revision));
      current.value = record;
    });
  }

  /** Gone from memory at once (a list no longer shows it), then deleted. */
  private remove(id: string): Promise<void> {
    const kept = this.queue.get(id);
    if (!kept) return Promise.resolve();
    this.queue.delete(id);
    this.order = this.order.filter((other) => other !== id);
    // The revision is read when the write runs: a state change queued before it has moved it on.
    return this.write(() => this.cas(() => this.kv.delete(SEND_QUEUE_KEYS.queued(this.session, id), { previousSeq: kept.revision })));
  }

  /** Minutes older than the windows and the warm-up look at. */
  private async prune(before: number): Promise<void> {
    for (const [minute, kept] of this.minutes) {
      if ((minute + 1) * MINUTE_MS > before) continue;
      this.minutes.delete(minute);
      await this.cas(() => this.kv.purge(SEND_QUEUE_KEYS.sentMinute(this.session, minute), { previousSeq: kept.revision }));
    }
  }

  /** One write at a time, each with the fencing token of the lease held now. */
  private write<T>(work: (fencingToken: number) => Promise<T>): Promise<T> {
    const run = async (): Promise<T> => {
      const token = this.options.fencingToken();
      if (token === null) throw new SendQueueFenced(this.session, 'the session lease is not held');
      return work(token);
    };
    const next = this.writes.then(run, run);
    this.writes = next.catch(() => undefined);
    return next;
  }

  /** A compare-and-set that finds another revision: someone else wrote the key. */
  private async cas<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (jsErrorCode(error) === JS_ERR.wrongLastSequence) throw new SendQueueFenced(this.session, 'another engine pod wrote its keys');
      throw error;
    }
  }
}

function publicFields(row: QueuedSendRow): Omit<QueuedSendRow, 'command'> {
  const { id, session, chatId, route, state, queuedAt } = row;
  return { id, session, chatId, route, state, queuedAt };
}

function rowOf(record: SendQueueRecord): QueuedSendRow {
  const { seq: _seq, fencingToken: _token, command, ...fields } = record;
  return { ...fields, command: command as QueuedSendRow['command'] };
}
