import { setTimeout as sleep } from 'node:timers/promises';
import { type Ack, ACKS, ackName, MessageRecord, parseMessageId } from '@switchboard/protocol';
import type { EngineLog } from '../engine.js';
import { chatAliasOf, libraryDeletedChats, libraryLidPair, participantLidPair } from './chat-alias.js';
import { forgetChatHistory, type MessageStore } from './message-store.js';

/** The part of an event envelope the recorder reads. */
export interface RecordedEvent {
  readonly session: string;
  readonly event: string;
  readonly payload: Record<string, unknown>;
}

type Operation = (store: MessageStore, session: string) => Promise<void>;

const RETRY_DELAYS_MS = [100, 400, 1_600, 5_000];

/**
 * Turns a session's events into its message history: `message.any` records a message (in or
 * out), `message.ack` moves its acknowledgement on, `message.edited` changes its text, and
 * `message.revoked` empties it, as the phone shows a deleted message. One recorder serves both
 * modes: local mode feeds it the gateway's bus, cluster mode the events an engine pod publishes.
 *
 * Operations run one at a time in event order (an ack must find the message it acknowledges).
 * A failing write is retried a few times, then logged and dropped: history is a convenience
 * record, and an outage of its store must not hold back events.
 */
export class HistoryRecorder {
  private tail: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly store: MessageStore,
    private readonly log: EngineLog,
  ) {}

  record(event: RecordedEvent): void {
    if (this.closed) return;
    const operation = operationFor(event);
    if (!operation) return;
    this.tail = this.tail.then(() => this.run(operation, event));
  }

  /** Resolves once every operation recorded so far is written (or given up). */
  flush(): Promise<void> {
    return this.tail;
  }

  /** Takes no more events; the ones queued are still written. */
  close(): Promise<void> {
    this.closed = true;
    return this.tail;
  }

  private async run(operation: Operation, event: RecordedEvent): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await operation(this.store, event.session);
        return;
      } catch (error) {
        const context = { session: event.session, event: event.event, attempt, err: error };
        if (attempt >= RETRY_DELAYS_MS.length) {
          this.log.error(context, 'message history: write failed; this event is not in the history');
          return;
        }
        this.log.warn(context, 'message history: write failed; retrying');
        await sleep(RETRY_DELAYS_MS[attempt]);
      }
    }
  }
}

function operationFor({ event, payload }: RecordedEvent): Operation | null {
  switch (event) {
    case 'engine.event': {
      // NOWEB relays the library's own LID mappings (from the address book's app state, say): the map learns them too.
      const pair = payload.event === 'lid-mapping.update' ? libraryLidPair(payload.data) : null;
      if (pair) return (store, session) => learnLid(store, session, pair);
      // And the chats deleted on the phone: in event order, after the messages recorded before.
      const deleted = payload.event === 'chats.delete' ? libraryDeletedChats(payload.data) : [];
      if (deleted.length > 0) return (store, session) => forgetChats(store, session, deleted);
      // And the phone's history sync at pairing (GOWS: the messages' records), kept as message.any keeps one.
      const synced = payload.event === 'messaging-history.set' ? historyRecords(payload.data) : [];
      return synced.length > 0 ? (store, session) => upsertAll(store, session, synced) : null;
    }
    case 'message.any':
      return (store, session) => upsert(store, session, payload as unknown as MessageRecord);
    case 'message.ack':
      return (store, session) => acknowledge(store, session, payload);
    case 'message.edited':
      return (store, session) =>
        change(store, session, String(payload.id), payload.editedMessageId, (record) => ({
          ...record,
          body: typeof payload.body === 'string' ? payload.body : '',
        }));
    case 'message.revoked': {
      const after = payload.after as { id?: unknown } | undefined;
      return (store, session) =>
        change(store, session, String(after?.id), payload.revokedMessageId, (record) => ({
          ...record,
          body: '',
          hasMedia: false,
          media: null,
        }));
    }
    default:
      return null;
  }
}

/** Where a record is kept: its chat, and its id without the chat id. */
function keyOf(record: MessageRecord): { chatId: string; messageId: string } {
  const parsed = parseMessageId(record.id);
  if (parsed) return { chatId: parsed.chatId, messageId: parsed.id };
  return { chatId: record.fromMe ? record.to : record.from, messageId: record.id };
}

async function upsert(store: MessageStore, session: string, record: MessageRecord): Promise<void> {
  const { chatId, messageId } = keyOf(record);
  // A message seen again (an engine re-delivering it) keeps the acknowledgement it reached.
  if (store.upsert) {
    const named = record.ackName === ackName(record.ack) ? record : { ...record, ackName: ackName(record.ack) };
    await store.upsert(session, chatId, messageId, named);
  } else {
    const existing = await store.get(session, chatId, messageId);
    const ack = existing ? furtherAck(existing.ack, record.ack) : record.ack;
    await store.put(session, chatId, messageId, { ...record, ack, ackName: ackName(ack) });
  }
  const alias = chatAliasOf(record, chatId);
  if (alias) {
    await store.setAlias(session, chatId, alias);
    await store.setAlias(session, alias, chatId);
  }
  const sender = participantLidPair(record);
  if (sender) await learnLid(store, session, sender);
}

/** The message records of a history sync (`{messages: [record]}`); any that is no record is left out. */
function historyRecords(data: unknown): MessageRecord[] {
  const messages = (data as { messages?: unknown } | null)?.messages;
  if (!Array.isArray(messages)) return [];
  return messages.flatMap((message) => {
    const parsed = MessageRecord.safeParse(message);
    return parsed.success ? [parsed.data] : [];
  });
}

async function upsertAll(store: MessageStore, session: string, records: readonly MessageRecord[]): Promise<void> {
  for (const record of records) await upsert(store, session, record);
}

async function forgetChats(store: MessageStore, session: string, chatIds: readonly string[]): Promise<void> {
  for (const chatId of chatIds) await forgetChatHistory(store, session, chatId);
}

async function learnLid(store: MessageStore, session: string, pair: { readonly lid: string; readonly pn: string }): Promise<void> {
  await store.setAlias(session, pair.lid, pair.pn);
  await store.setAlias(session, pair.pn, pair.lid);
}

async function acknowledge(store: MessageStore, session: string, payload: Record<string, unknown>): Promise<void> {
  // One member's receipt of our own group message says nothing of the message as a whole.
  if (payload.fromMe === true && payload.participant) return;
  const key = parseMessageId(String(payload.id));
  const ack = payload.ack as Ack;
  if (!key || !(Object.values(ACKS) as number[]).includes(ack)) return;
  if (store.advanceAck) return store.advanceAck(session, key.chatId, key.id, ack);
  const existing = await store.get(session, key.chatId, key.id);
  if (!existing) return;
  const next = furtherAck(existing.ack, ack);
  if (next !== existing.ack) await store.put(session, key.chatId, key.id, { ...existing, ack: next, ackName: ackName(next) });
}

/**
 * Edits and revokes name the message by its id without the chat, and the chat by their own
 * action's id. The message may sit under the chat's other address (`@lid` / `@c.us`).
 */
async function change(
  store: MessageStore,
  session: string,
  actionId: string,
  targetId: unknown,
  apply: (record: MessageRecord) => MessageRecord,
): Promise<void> {
  const chatId = parseMessageId(actionId)?.chatId;
  if (!chatId || typeof targetId !== 'string' || !targetId) return;
  for (const chat of [chatId, await store.aliasOf(session, chatId)]) {
    const existing = chat ? await store.get(session, chat, targetId) : null;
    if (chat && existing) return store.put(session, chat, targetId, apply(existing));
  }
}

/**
 * Acknowledgements only move forward, whatever order receipts arrive in. ERROR is the one step
 * back, taken only by a message that never reached the recipient's device.
 */
export function furtherAck(current: Ack, next: Ack): Ack {
  if (next === ACKS.ERROR) return current < ACKS.DEVICE ? ACKS.ERROR : current;
  return next > current ? next : current;
}
