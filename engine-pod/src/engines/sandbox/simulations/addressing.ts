import { type MeInfo, type MessageKey, type MessageRecord, messageId, parseMessageId } from '@switchboard/protocol';
import { CommandError, invalidField } from '../../../command-error.js';
import { sandboxMessageId } from '../codes.js';
import type { SandboxSide } from '../sandbox-side.js';
import { DEFAULT_MEMBER } from './world-ids.js';

export const isGroupChat = (chatId: string): boolean => chatId.endsWith('@g.us');

/** Who sent a new message in a chat and to whom, as NOWEB and WEBJS address them. */
export interface MessageEnds {
  /** The full id (spec 2.5): incoming group messages end with `_<participant>`. */
  readonly id: string;
  readonly from: string;
  readonly to: string;
  readonly fromMe: boolean;
  /** The sender in a group (you, for your own); null in direct chats. */
  readonly participant: string | null;
}

/**
 * A new message in `chatId`: your own goes from you to the chat, the others' from the chat to
 * you. In a group the sender is `member` (a default member when none is named). `id` is the
 * message's own id, a new one unless given.
 */
export function newMessageEnds(me: MeInfo, chatId: string, fromMe: boolean, member?: string | null, id?: string | null): MessageEnds {
  const group = isGroupChat(chatId);
  const sender = group ? (fromMe ? me.id : (member ?? DEFAULT_MEMBER)) : null;
  return {
    id: messageId(fromMe, chatId, id ?? sandboxMessageId(), fromMe ? null : sender),
    from: fromMe ? me.id : chatId,
    to: fromMe ? chatId : me.id,
    fromMe,
    participant: sender,
  };
}

/** The message the session sent or received with this id, and its key; a 404 naming it otherwise. */
export function knownMessage(side: SandboxSide, id: string): { record: MessageRecord; key: MessageKey } {
  const record = side.world.messages.get(id);
  const key = parseMessageId(id);
  if (!record || !key) {
    throw new CommandError('NOT_FOUND', `session '${side.context.session}' has no message ${id}; send or receive it first`, {
      session: side.context.session,
      messageId: id,
    });
  }
  return { record, key };
}

/** The key of a message named by its full id (checked by the request schema), known or not. */
export function messageKey(id: string, field: string): MessageKey {
  const key = parseMessageId(id);
  if (!key) throw invalidField(field, 'must be a message id "{fromMe}_{chatId}_{messageId}[_{participant}]"');
  return key;
}
