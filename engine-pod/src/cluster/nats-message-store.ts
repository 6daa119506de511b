import { JS_ERR, jsErrorCode, latestValues, openMessagesBucket, type StoreOptions } from '@switchboard/kube/pod';
import { type Ack, ackName, KV_BUCKETS, type MessageRecord } from '@switchboard/protocol';
import type { KV, KvEntry, NatsConnection } from 'nats';
import { selectPage, type OrderedRecord } from '../history/history-page.js';
import { furtherAck } from '../history/history-recorder.js';
import type { HistoryPage, LidPair, MessageStore, StoredChat } from '../history/message-store.js';
import { authKeyToken } from './nats-auth-state-store.js';

const STREAM = `KV_${KV_BUCKETS.messages}`;
const sessionSubjects = (session: string) => `$KV.${KV_BUCKETS.messages}.${session}.>`;

/** A record as kept: `order` is the revision of its first write, so updates keep its place. */
interface StoredValue {
  readonly record: MessageRecord;
  readonly order?: number;
}

/** Opens the history bucket, creating it on first use (unless bound): one value per key, kept on disk. */

/**
 * Cluster mode's message history, in NATS KV `sb_messages`: it outlives the engine pod that
 * wrote it, and every gateway replica reads it. Key `<session>.<chat>.<message>` (session names
 * are valid tokens; chat and message ids in base64url), one record each; `<session>.<chat>`
 * holds the chat's other address. The session's engine pod writes (it holds the lease), and a
 * gateway forgets a chat cleared or deleted through the API: an acknowledgement, which only
 * changes a stored record, therefore writes by compare-and-set (`advanceAck`), so that one
 * arriving while its chat is forgotten cannot bring the message back.
 *
 * A query reads every record of the chat and pages in memory: KV has no index by time. The
 * records come in one pass of an ordered consumer over the chat's keys (`latestValues`), not one
 * request per message: a chat of thousands of messages is one stream of them.
 */
export class NatsMessageStore implements MessageStore {
  private constructor(
    private readonly nc: NatsConnection,
    private readonly kv: KV,
    private readonly forgetsByKey: boolean,
  ) {}

  /**
   * `forgetsByKey`: the session's engine pod, which may write its own keys but not manage the
   * stream (operator/src/nats-auth/permissions.ts), forgets a chat key by key; a gateway purges
   * the stream by subject, which leaves no marker behind.
   */
  static async open(nc: NatsConnection, options: StoreOptions & { readonly forgetsByKey?: boolean } = {}): Promise<NatsMessageStore> {
    return new NatsMessageStore(nc, await openMessagesBucket(nc, options), options.forgetsByKey ?? false);
  }

  async get(session: string, chatId: string, messageId: string): Promise<MessageRecord | null> {
    return valueOf(await this.kv.get(messageKey(session, chatId, messageId)))?.record ?? null;
  }

  async put(session: string, chatId: string, messageId: string, record: MessageRecord): Promise<void> {
    const key = messageKey(session, chatId, messageId);
    const existing = await this.kv.get(key);
    const stored = valueOf(existing);
    const order = stored ? (stored.order ?? existing!.revision) : undefined;
    await this.kv.put(key, JSON.stringify({ record, ...(order === undefined ? {} : { order }) } satisfies StoredValue));
  }

  async advanceAck(session: string, chatId: string, messageId: string, ack: Ack): Promise<void> {
    const key = messageKey(session, chatId, messageId);
    // A lost race is with a forget (the key is gone: nothing to do) or, rarely, another write of
    // the record (read it again).
    for (let attempt = 0; attempt < 3; attempt++) {
      const entry = await this.kv.get(key);
      const stored = valueOf(entry);
      if (!entry || !stored) return;
      const next = furtherAck(stored.record.ack, ack);
      if (next === stored.record.ack) return;
      const value: StoredValue = { record: { ...stored.record, ack: next, ackName: ackName(next) }, order: stored.order ?? entry.revision };
      try {
        await this.kv.update(key, JSON.stringify(value), entry.revision);
        return;
      } catch (error) {
        if (jsErrorCode(error) !== JS_ERR.wrongLastSequence) throw error;
      }
    }
  }

  async setAlias(session: string, chatId: string, otherId: string): Promise<void> {
    if ((await this.aliasOf(session, chatId)) !== otherId) await this.kv.put(chatKey(session, chatId), otherId);
  }

  async aliasOf(session: string, chatId: string): Promise<string | null> {
    const entry = await this.kv.get(chatKey(session, chatId));
    return entry?.operation === 'PUT' ? entry.string() : null;
  }

  async lids(session: string, page: { readonly limit: number; readonly offset: number }): Promise<LidPair[]> {
    return (await this.lidMap(session)).slice(page.offset, page.offset + page.limit);
  }

  async lidCount(session: string): Promise<number> {
    return (await this.lidMap(session)).length;
  }

  /** Every alias of the session (its two-token keys) whose chat is a linked id, by linked id. */
  private async lidMap(session: string): Promise<LidPair[]> {
    const pairs: LidPair[] = [];
    for (const entry of await latestValues(this.kv, `${session}.*`, 'LID map')) {
      if (entry.operation !== 'PUT') continue;
      const chatId = Buffer.from(entry.key.slice(session.length + 1), 'base64url').toString('utf8');
      if (chatId.endsWith('@lid')) pairs.push({ lid: chatId, pn: entry.string() });
    }
    return pairs.sort((a, b) => a.lid.localeCompare(b.lid));
  }

  async query(session: string, chatIds: readonly string[], page: HistoryPage): Promise<MessageRecord[]> {
    const entries: OrderedRecord[] = [];
    for (const chatId of chatIds) {
      for (const entry of await latestValues(this.kv, `${chatKey(session, chatId)}.*`, 'message history')) {
        const stored = valueOf(entry);
        if (stored) entries.push({ record: stored.record, order: stored.order ?? entry.revision });
      }
    }
    return selectPage(entries, page);
  }

  /** One pass over the session's keys: a message key has three tokens, a chat's alias two. */
  async chats(session: string): Promise<StoredChat[]> {
    const chats = new Map<string, { last: OrderedRecord; messages: number }>();
    for (const entry of await latestValues(this.kv, `${session}.*.*`, 'message history')) {
      const stored = valueOf(entry);
      if (!stored) continue;
      const chatId = Buffer.from(entry.key.split('.')[1] ?? '', 'base64url').toString('utf8');
      const record = { record: stored.record, order: stored.order ?? entry.revision };
      const chat = chats.get(chatId);
      if (!chat) chats.set(chatId, { last: record, messages: 1 });
      else {
        chat.messages++;
        chat.last = newer(chat.last, record);
      }
    }
    return [...chats].map(([chatId, { last, messages }]) => ({ chatId, last: last.record, messages }));
  }

  /** The chat's message keys (three tokens) go; its alias, the two-token key `<session>.<chat>`, stays. */
  async forgetChat(session: string, chatId: string): Promise<void> {
    if (!this.forgetsByKey) {
      await purgeSubjects(this.nc, `$KV.${KV_BUCKETS.messages}.${chatKey(session, chatId)}.*`);
      return;
    }
    for (const entry of await latestValues(this.kv, `${chatKey(session, chatId)}.*`, 'message history')) await this.kv.purge(entry.key);
  }

  async purgeSession(session: string): Promise<void> {
    await purgeSessionMessages(this.nc, session);
  }
}

/** Forgets a session's history without its engine pod (the gateway's logout and delete). */
export async function purgeSessionMessages(nc: NatsConnection, session: string): Promise<number> {
  return purgeSubjects(nc, sessionSubjects(session));
}

/** Purges the bucket's keys under `filter` (a subject), however many; none when there is no bucket yet. */
async function purgeSubjects(nc: NatsConnection, filter: string): Promise<number> {
  const jsm = await nc.jetstreamManager();
  try {
    return (await jsm.streams.purge(STREAM, { filter })).purged;
  } catch (error) {
    if (jsErrorCode(error) === JS_ERR.streamNotFound) return 0;
    throw error;
  }
}

const chatKey = (session: string, chatId: string) => `${session}.${authKeyToken(chatId)}`;
const messageKey = (session: string, chatId: string, messageId: string) => `${chatKey(session, chatId)}.${authKeyToken(messageId)}`;

function newer(a: OrderedRecord, b: OrderedRecord): OrderedRecord {
  return (b.record.timestamp - a.record.timestamp || b.order - a.order) > 0 ? b : a;
}

function valueOf(entry: KvEntry | null): StoredValue | null {
  return entry?.operation === 'PUT' ? entry.json<StoredValue>() : null;
}
