import { type MessageKey, parseMessageId } from '@switchboard/protocol';
import type { WAMessage } from '@whiskeysockets/baileys';
import type { MessageAddress } from './message-record.js';

/** A message as the library holds it, and where the interface addresses it. */
export interface RecentMessage {
  readonly msg: WAMessage;
  readonly address: MessageAddress;
  /** Incoming only: whether this session sent its read receipt. */
  read: boolean;
}

/**
 * The last messages this engine sent or received, by id. Baileys keeps no store of its own, yet
 * forwarding needs the original's content, a reply quotes the message it answers, a reaction or
 * a read receipt needs the key as the library wrote it (a LID, the sender in a group) and
 * "mark the chat read" needs its unread messages. Bounded: the oldest go first; a message older
 * than that is named by its full id alone (or, for a forward, is unknown).
 */
export class RecentMessages {
  private readonly messages = new Map<string, RecentMessage>();

  constructor(private readonly capacity = 1_000) {}

  remember(msg: WAMessage, address: MessageAddress): void {
    const id = msg.key.id;
    if (!id) return;
    const read = this.messages.get(id)?.read ?? !!msg.key.fromMe;
    // Delete first, so that a message seen again counts as the newest.
    this.messages.delete(id);
    this.messages.set(id, { msg, address, read });
    if (this.messages.size > this.capacity) this.messages.delete(this.messages.keys().next().value!);
  }

  /** The message a full id (spec 2.5) names, when it is one of the recent ones of that chat. */
  find(fullId: string): RecentMessage | undefined {
    const key = parseMessageId(fullId);
    return key ? this.byKey(key) : undefined;
  }

  byKey(key: MessageKey): RecentMessage | undefined {
    const found = this.messages.get(key.id);
    if (!found || found.address.chatId !== key.chatId || !!found.msg.key.fromMe !== key.fromMe) return undefined;
    return found;
  }

  /** The chat's newest message this engine saw. */
  latest(chatId: string): RecentMessage | undefined {
    return [...this.messages.values()].findLast((m) => m.address.chatId === chatId);
  }

  /** The incoming messages of a chat this session has not read yet, oldest first. */
  unread(chatId: string): RecentMessage[] {
    return [...this.messages.values()].filter((m) => !m.read && m.address.chatId === chatId);
  }
}
