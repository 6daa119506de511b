import type { CallPayload, ChatPresences, EventName, GroupInfo, Label, MessageRecord, PresenceStatus } from '@switchboard/protocol';
import type { EngineContext } from '../../engine.js';
import { SandboxChannels } from './channels.js';

/** A map that forgets its oldest entries beyond `limit`, so a long-running session stays small. */
class Recent<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly limit: number) {}

  get(key: string): V | undefined {
    return this.entries.get(key);
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.limit) this.entries.delete(this.entries.keys().next().value!);
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  values(): IterableIterator<V> {
    return this.entries.values();
  }
}

/** What the account's chat list shows of a chat besides its messages. */
export interface SandboxChatState {
  archived: boolean;
  /** Marked unread by hand (a badge without unread messages). */
  markedUnread: boolean;
  /** The pinned message's full id, and until when (Unix seconds). */
  pinned: { readonly messageId: string; readonly until: number } | null;
  /** The picture's download address, once made. */
  picture?: string | null;
}

/**
 * What the simulated account knows besides its pairing: the messages it sent and received (so a
 * reaction, an edit or an ack can name one), its labels, the groups it is in and the calls
 * ringing. Kept in memory: a restart forgets them, as a phone-less sandbox may.
 */
export class SandboxWorld {
  /** The last 5,000 messages, by their full id (spec 2.5). */
  readonly messages = new Recent<MessageRecord>(5_000);
  readonly labels = new Map<string, Label>();
  readonly groups = new Map<string, GroupInfo>();
  /** Offered calls, by call id, until they end. */
  readonly calls = new Recent<CallPayload>(256);
  /** Chats as the account's chat list has them (sandbox/chats.ts), by chat id. */
  readonly chats = new Recent<SandboxChatState>(5_000);
  /** Incoming messages the account has read, by full id. */
  readonly read = new Recent<true>(5_000);
  /** The chats whose presence the account watches, with what it last heard. */
  readonly presences = new Recent<ChatPresences>(1_000);
  /** The account's own presence, as last set. */
  ownPresence: PresenceStatus | null = null;
  /** The labels on each chat: chat id to label ids. */
  readonly labelledChats = new Map<string, Set<string>>();
  /** The names the account gave contacts (`PUT /contacts/{chatId}`), by contact id. */
  readonly contactNames = new Map<string, { firstName: string; lastName: string }>();
  readonly blocked = new Set<string>();
  /** The phone number of each linked id the simulated service revealed (a `message` simulation's `pn`). */
  readonly lids = new Map<string, string>();

  /** Puts a label on a chat or takes it off. */
  labelChat(chatId: string, labelId: string, on: boolean): void {
    const ids = this.labelledChats.get(chatId) ?? new Set<string>();
    if (on) ids.add(labelId);
    else ids.delete(labelId);
    if (ids.size > 0) this.labelledChats.set(chatId, ids);
    else this.labelledChats.delete(chatId);
  }

  /** The linked id of a phone-number id, when one is known. */
  lidOf(pn: string): string | undefined {
    for (const [lid, phone] of this.lids) if (phone === pn) return lid;
    return undefined;
  }
  /** The channels it made, follows and mutes, and the simulated directory (channels.ts). */
  readonly channels = new SandboxChannels();

  /**
   * The engine's context, with every `message.any` remembered on its way out: whatever sends or
   * receives a message (an API send, a simulation) makes it known without doing anything more.
   */
  watching(context: EngineContext): EngineContext {
    return {
      ...context,
      // The host's context is a plain object of values and functions: a copy with another emit stands in for it.
      emit: (event: EventName, payload: Record<string, unknown>) => {
        if (event === 'message.any') this.messages.set((payload as MessageRecord).id, payload as MessageRecord);
        context.emit(event, payload);
      },
    };
  }
}
