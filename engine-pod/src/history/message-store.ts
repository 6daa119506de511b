import type { Ack, HistoryQuery, MessageRecord } from '@switchboard/protocol';

/** A contact's linked id (`<id>@lid`) and its phone-number id (`<number>@c.us`). */
export interface LidPair {
  readonly lid: string;
  readonly pn: string;
}

/** One page of one or more chats: the query once the chat's addresses are known. */
export type HistoryPage = Omit<HistoryQuery, 'chatId' | 'merge'>;

/** A chat of the history: its newest message (by timestamp, then arrival) and how many it has. */
export interface StoredChat {
  readonly chatId: string;
  readonly last: MessageRecord;
  readonly messages: number;
}

/**
 * Where a session's messages are kept so the history endpoints answer on every engine. Local
 * mode keeps them in the gateway's SQLite file; cluster mode in NATS KV, written by the engine
 * pod and read by every gateway replica. A store only keeps and finds records: what an event
 * does to them is the HistoryRecorder's business, the same for both (a store that implements the
 * optional one-step writes says the same rule in its own terms, and the same suite checks it).
 */
export interface MessageStore {
  /** The record of message `messageId` (the id without chat id) in `chatId`, or null. */
  get(session: string, chatId: string, messageId: string): Promise<MessageRecord | null>;
  /** Inserts, or replaces the record of the same message; a replaced record keeps its place among equal timestamps. */
  put(session: string, chatId: string, messageId: string, record: MessageRecord): Promise<void>;
  /**
   * Optional, for a store that does it without reading first (the recorder reads, then puts,
   * where it is missing): `put`, except that a record already there keeps its acknowledgement
   * when that is further on (`furtherAck`).
   */
  upsert?(session: string, chatId: string, messageId: string, record: MessageRecord): Promise<void>;
  /**
   * Optional, likewise: moves the acknowledgement of a stored message on to `ack` where
   * `furtherAck` says so (`ackName` follows); nothing when the message is not there.
   */
  advanceAck?(session: string, chatId: string, messageId: string, ack: Ack): Promise<void>;
  /** Remembers that two addresses are the same chat (a contact's `@lid` and its `@c.us`). */
  setAlias(session: string, chatId: string, otherId: string): Promise<void>;
  aliasOf(session: string, chatId: string): Promise<string | null>;
  /**
   * The session's LID map, which is its aliases seen from the `@lid` side: each linked id with its
   * phone-number id, by linked id, one page (`GET /api/{session}/lids`).
   */
  lids(session: string, page: { readonly limit: number; readonly offset: number }): Promise<LidPair[]>;
  /** How many linked ids the LID map has. */
  lidCount(session: string): Promise<number>;
  /** The records of these chats: filtered, by timestamp (then arrival), one page. */
  query(session: string, chatIds: readonly string[], page: HistoryPage): Promise<MessageRecord[]>;
  /** Every chat of the session that has a message, each with its newest one (the chats list). */
  chats(session: string): Promise<StoredChat[]>;
  /**
   * Forgets every message of one chat (the chat was deleted): it goes from the chats list and its
   * history is empty. Its aliases stay, as they say who the contact is, not what the chat held.
   */
  forgetChat(session: string, chatId: string): Promise<void>;
  /** Forgets every message of a session (logout, delete). */
  purgeSession(session: string): Promise<void>;
}

/** A chat's history as the API reads it: with `merge`, its other address too. */
export async function readHistory(store: MessageStore, session: string, query: HistoryQuery): Promise<MessageRecord[]> {
  const { chatId, merge, ...page } = query;
  const alias = merge ? await store.aliasOf(session, chatId) : null;
  return store.query(session, alias ? [chatId, alias] : [chatId], page);
}

/**
 * Forgets a deleted (or cleared) chat's history: the chat leaves the chats lists and its messages
 * list is empty, as on the phone. A contact's `@lid` and `@c.us` are one chat on the phone, so
 * both go; the alias stays, as it says who the contact is, not what the chat held.
 */
export async function forgetChatHistory(store: MessageStore, session: string, chatId: string): Promise<void> {
  const alias = await store.aliasOf(session, chatId);
  await Promise.all([chatId, ...(alias ? [alias] : [])].map((id) => store.forgetChat(session, id)));
}
