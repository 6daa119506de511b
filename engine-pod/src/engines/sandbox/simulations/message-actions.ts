import {
  ACKS,
  ackName,
  type MessageEditedPayload,
  type MessageReactionPayload,
  type MessageRecord,
  type MessageRevokedPayload,
  messageId,
  type SimulateAck,
  type SimulateEdit,
  type SimulateReaction,
  type SimulateRevoke,
  type SimulateWaiting,
} from '@switchboard/protocol';
import type { z } from 'zod';
import { invalidField } from '../../../command-error.js';
import { sandboxMessageId } from '../codes.js';
import { messageRecord } from '../message-record.js';
import type { SandboxSide } from '../sandbox-side.js';
import { isGroupChat, knownMessage, newMessageEnds } from './addressing.js';
import type { SimulationResult } from './simulation.js';
import { nowSeconds } from './world-ids.js';

/** Someone (or you, on the phone) reacts to a message the session knows: `message.reaction`. */
export async function simulateReaction(side: SandboxSide, request: z.infer<typeof SimulateReaction>): SimulationResult {
  const me = side.requireWorking();
  const { key } = knownMessage(side, request.messageId);
  const ends = newMessageEnds(me, key.chatId, request.fromMe, request.participant);
  const payload: MessageReactionPayload = {
    id: ends.id,
    from: ends.from,
    fromMe: ends.fromMe,
    participant: ends.participant,
    to: ends.to,
    timestamp: nowSeconds(),
    source: 'app',
    reaction: { text: request.text, messageId: request.messageId },
  };
  side.context.emit('message.reaction', payload);
  return { id: payload.id };
}

/**
 * The server, the recipient or (the group variant) one group member acknowledges a message:
 * `message.ack`. The group variant's id is the message's id plus `_<participant>`.
 */
export async function simulateAck(side: SandboxSide, request: z.infer<typeof SimulateAck>): SimulationResult {
  const me = side.requireWorking();
  const { key } = knownMessage(side, request.messageId);
  const member = request.participant;
  if (member && !isGroupChat(key.chatId)) throw invalidField('participant', 'only acks in group chats name a participant');
  if (member && !key.fromMe) throw invalidField('participant', 'group members acknowledge only the messages you sent');
  const ack = ACKS[request.ack];
  const payload = {
    id: member ? `${request.messageId}_${member}` : request.messageId,
    from: key.chatId,
    to: me.id,
    participant: member ?? key.participant,
    fromMe: key.fromMe,
    ack,
    ackName: ackName(ack),
  };
  side.context.emit('message.ack', payload);
  return { id: payload.id };
}

/** The phone shows "waiting for this message": `message.waiting`, a record with no text yet. */
export async function simulateWaiting(side: SandboxSide, request: z.infer<typeof SimulateWaiting>): SimulationResult {
  const me = side.requireWorking();
  const record = messageRecord(newMessageEnds(me, request.from, false, request.participant, request.id), {
    _data: { engine: 'SANDBOX', type: 'ciphertext' },
  });
  side.context.emit('message.waiting', record);
  return { id: record.id };
}

/** The author edits a message the session knows: `message.edited`, with the edit's own id. */
export async function simulateEdit(side: SandboxSide, request: z.infer<typeof SimulateEdit>): SimulationResult {
  side.requireWorking();
  const { record, key } = knownMessage(side, request.messageId);
  const action = authorAction(record, key.chatId, key.fromMe, key.participant);
  const payload: MessageEditedPayload = {
    ...messageRecord(action),
    body: request.body,
    editedMessageId: key.id,
    _data: { engine: 'SANDBOX', type: 'edit', editedMessageId: request.messageId },
  };
  // A new object: the one remembered went out in an earlier event, which may not be serialized yet.
  side.world.messages.set(record.id, { ...record, body: request.body });
  side.context.emit('message.edited', payload);
  return { id: payload.id, editedMessageId: key.id };
}

/** The author revokes ("delete for everyone") a message the session knows: `message.revoked`. */
export async function simulateRevoke(side: SandboxSide, request: z.infer<typeof SimulateRevoke>): SimulationResult {
  side.requireWorking();
  const { record, key } = knownMessage(side, request.messageId);
  const action = authorAction(record, key.chatId, key.fromMe, key.participant);
  const payload: MessageRevokedPayload = {
    after: messageRecord(action, { _data: { engine: 'SANDBOX', type: 'revoke', revokedMessageId: request.messageId } }),
    revokedMessageId: key.id,
    before: record,
  };
  side.world.messages.delete(record.id);
  side.context.emit('message.revoked', payload);
  return { id: payload.after.id, revokedMessageId: key.id };
}

/** A protocol message (edit, revoke) from the author of `record`, in the same chat. */
export function authorAction(
  record: Pick<MessageRecord, 'from' | 'to' | 'participant'>,
  chatId: string,
  fromMe: boolean,
  participant: string | null,
) {
  return {
    id: messageId(fromMe, chatId, sandboxMessageId(), participant),
    from: record.from,
    to: record.to,
    fromMe,
    participant: record.participant,
  };
}
