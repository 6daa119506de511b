import {
  messageId,
  type DeleteStatusRequest,
  type MessageRecord,
  type MessageRevokedPayload,
  STATUS_CHAT,
  statusMessageId,
  type TextStatus,
} from '@switchboard/protocol';
import type { OutgoingMediaStatus } from '../../capabilities/stories.js';
import { sandboxMessageId } from './codes.js';
import { messageRecord } from './message-record.js';
import type { SandboxSide } from './sandbox-side.js';
import { outgoing, publish } from './sending.js';

/*
 * Status updates (stories) on the SANDBOX: a send is a message from the account to
 * `status@broadcast`, answered and announced like any send (`message.any` with source `api`, then
 * its acks); the world remembers it, so that deleting it revokes it (`message.revoked`, with the
 * status as it was).
 */

export async function sendTextStatus(side: SandboxSide, status: TextStatus): Promise<MessageRecord> {
  const { text, id, contacts, ...look } = status;
  return publish(side, outgoing(side, { chatId: STATUS_CHAT, id }, { body: text, _data: { type: 'chat', ...look, contacts: contacts ?? null } }));
}

const TYPES = { image: 'image', voice: 'ptt', video: 'video' } as const;

export async function sendMediaStatus(side: SandboxSide, status: OutgoingMediaStatus): Promise<MessageRecord> {
  side.requireWorking();
  const { kind, file, id, contacts, ...options } = status;
  const media = await side.context.saveMedia(file);
  const body = 'caption' in options ? (options.caption ?? '') : '';
  return publish(
    side,
    outgoing(
      side,
      { chatId: STATUS_CHAT, id },
      {
        body,
        hasMedia: true,
        media,
        _data: { type: TYPES[kind], mimetype: file.mimetype, size: file.data.length, ...options, contacts: contacts ?? null },
      },
    ),
  );
}

/** Revokes the status for everyone it went to; a status the world no longer holds is revoked all the same. */
export async function deleteStatus(side: SandboxSide, request: DeleteStatusRequest): Promise<void> {
  const me = side.requireWorking();
  const revoked = statusMessageId(request.id);
  const before = side.world.messages.get(messageId(true, STATUS_CHAT, revoked)) ?? null;
  const payload: MessageRevokedPayload = {
    after: messageRecord(
      { id: messageId(true, STATUS_CHAT, sandboxMessageId()), from: me.id, to: STATUS_CHAT, fromMe: true, participant: null },
      { source: 'api', _data: { engine: 'SANDBOX', type: 'revoke', revokedMessageId: revoked, contacts: request.contacts ?? null } },
    ),
    revokedMessageId: revoked,
    before,
  };
  if (before) side.world.messages.delete(before.id);
  side.context.emit('message.revoked', payload);
}
