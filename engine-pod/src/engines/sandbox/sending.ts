import { ACKS, type MessageRecord, type ReplyToMessage, wholeSeconds } from '@switchboard/protocol';
import type {
  CommandArgs,
  OutgoingButtonReply,
  OutgoingButtons,
  OutgoingContacts,
  OutgoingLinkPreview,
  OutgoingMedia,
} from '../../capabilities/chatting.js';
import type { SendTextArgs } from '../../engine.js';
import { messageRecord } from './message-record.js';
import type { SandboxSide } from './sandbox-side.js';
import { newMessageEnds } from './simulations/addressing.js';

/*
 * What a SANDBOX send does (docs/sandbox.md): the message record of spec 2.5 is answered at once
 * (ack PENDING), goes out as `message.any` with source `api`, is remembered by the world (so a
 * later forward, reaction or vote can name it), and is acknowledged SERVER, then DEVICE.
 */

/** Where a send goes: every send request has these (protocol `sendFields`). */
interface Target {
  readonly chatId: string;
  readonly id?: string | null | undefined;
  readonly reply_to?: string | null | undefined;
}

/** What differs between kinds of message; the rest of the record is the same for all. */
type Content = Pick<MessageRecord, 'body'> &
  Partial<Pick<MessageRecord, 'hasMedia' | 'media' | 'vCards' | 'location'>> & { readonly _data: Record<string, unknown> };

export function outgoing(side: SandboxSide, target: Target, { _data, ...content }: Content): MessageRecord {
  const me = side.requireWorking();
  return messageRecord(newMessageEnds(me, target.chatId, true, null, target.id), {
    timestamp: wholeSeconds(),
    source: 'api',
    ack: ACKS.PENDING,
    ackName: 'PENDING',
    replyTo: quoted(side, target.reply_to),
    ...content,
    _data: { engine: 'SANDBOX', ..._data },
  });
}

/** `message.any`, then the acknowledgements; the record is the send's answer. */
export function publish(side: SandboxSide, record: MessageRecord): MessageRecord {
  side.context.emit('message.any', record);
  side.acknowledgeLater(record);
  return record;
}

/** The quoted message: what the session knows of it, or just its id. */
function quoted(side: SandboxSide, replyTo: string | null | undefined): ReplyToMessage | null {
  if (!replyTo) return null;
  const known = side.world.messages.get(replyTo);
  return known ? { id: replyTo, body: known.body, hasMedia: known.hasMedia } : { id: replyTo, hasMedia: false };
}

export async function sendText(side: SandboxSide, args: SendTextArgs): Promise<MessageRecord> {
  return publish(side, outgoing(side, args, { body: args.text, _data: { type: 'chat', linkPreview: args.linkPreview } }));
}

/** `_data.type` as the messaging service names each kind. */
const MEDIA_TYPES = { image: 'image', file: 'document', voice: 'ptt', video: 'video' } as const;

/** The file goes to the media store (when the host has one), so `media.url` downloads it. */
export async function sendMedia(side: SandboxSide, args: OutgoingMedia): Promise<MessageRecord> {
  side.requireWorking();
  const { kind, file, chatId, id, reply_to, ...options } = args;
  const media = await side.context.saveMedia(file);
  const type = args.kind === 'video' && args.asNote ? 'ptv' : MEDIA_TYPES[kind];
  const body = 'caption' in options ? (options.caption ?? '') : '';
  return publish(
    side,
    outgoing(side, args, {
      body,
      hasMedia: true,
      media,
      _data: { type, mimetype: file.mimetype, filename: file.filename, size: file.data.length, ...options },
    }),
  );
}

export async function sendLinkCustomPreview(side: SandboxSide, args: OutgoingLinkPreview): Promise<MessageRecord> {
  const { image, ...preview } = args.preview;
  const thumbnail = image ? { mimetype: image.mimetype, size: image.data.length } : null;
  return publish(
    side,
    outgoing(side, args, {
      body: args.text,
      _data: { type: 'chat', linkPreview: { ...preview, highQuality: args.linkPreviewHighQuality, image: thumbnail } },
    }),
  );
}

export async function sendButtons(side: SandboxSide, args: OutgoingButtons): Promise<MessageRecord> {
  side.requireWorking();
  const media = args.headerImage ? await side.context.saveMedia(args.headerImage) : null;
  return publish(
    side,
    outgoing(side, args, {
      body: args.body,
      hasMedia: args.headerImage !== null,
      media,
      _data: { type: 'buttons', header: args.header ?? null, footer: args.footer ?? null, buttons: args.buttons },
    }),
  );
}

export async function sendList(side: SandboxSide, args: CommandArgs<'send.list'>): Promise<MessageRecord> {
  return publish(side, outgoing(side, args, { body: args.message.description ?? args.message.title, _data: { type: 'list', list: args.message } }));
}

/** The poll stays in `_data.poll`, where a vote (sending-actions.ts) finds its options. */
export async function sendPoll(side: SandboxSide, args: CommandArgs<'send.poll'>): Promise<MessageRecord> {
  return publish(side, outgoing(side, args, { body: args.poll.name, _data: { type: 'poll_creation', poll: args.poll } }));
}

export async function sendLocation(side: SandboxSide, args: CommandArgs<'send.location'>): Promise<MessageRecord> {
  const { latitude, longitude } = args;
  const title = args.title ?? undefined;
  return publish(
    side,
    outgoing(side, args, {
      body: '',
      location: { latitude: String(latitude), longitude: String(longitude), live: false, name: title, description: title },
      _data: { type: 'location', latitude, longitude, title: title ?? null },
    }),
  );
}

/** One card is a `vcard` message whose body is the card; several are a `multi_vcard`. */
export async function sendContactVcard(side: SandboxSide, args: OutgoingContacts): Promise<MessageRecord> {
  const single = args.vcards.length === 1;
  return publish(
    side,
    outgoing(side, args, { body: single ? args.vcards[0]! : '', vCards: [...args.vcards], _data: { type: single ? 'vcard' : 'multi_vcard' } }),
  );
}

export async function sendButtonReply(side: SandboxSide, args: OutgoingButtonReply): Promise<MessageRecord> {
  return publish(
    side,
    outgoing(side, args, {
      body: args.selectedDisplayText,
      _data: { type: 'buttons_response', selectedButtonId: args.selectedButtonID, selectedDisplayText: args.selectedDisplayText },
    }),
  );
}
