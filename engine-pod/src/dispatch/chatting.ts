import { vcardOf } from '../chatting/vcard.js';
import { resolveFile } from '../media/resolve-file.js';
import { capability, type CommandHandlers } from './types.js';

type ChattingOp =
  | 'send.text'
  | 'send.media'
  | 'send.linkCustomPreview'
  | 'send.buttons'
  | 'send.list'
  | 'send.poll'
  | 'send.pollVote'
  | 'send.location'
  | 'send.contactVcard'
  | 'send.buttonReply'
  | 'message.forward'
  | 'message.react'
  | 'message.star'
  | 'chat.seen'
  | 'chat.typing';

const MEDIA_NAMES = { image: 'images', file: 'files', voice: 'voice messages', video: 'videos' } as const;

/**
 * Spec 4.5. Files are downloaded or decoded here, once for every engine, and only after the
 * engine is known to support the send: engines get bytes, never URLs.
 */
export const chattingHandlers: CommandHandlers<ChattingOp> = {
  'send.text': async (engine, command) => engine.sendText(command.args),
  'send.media': async (engine, { args }, session, downloads) => {
    const send = capability(engine, engine.sendMedia, `sending ${MEDIA_NAMES[args.kind]}`, session);
    return send.call(engine, { ...args, file: await resolveFile(args.file, 'file', downloads) });
  },
  'send.linkCustomPreview': async (engine, { args }, session, downloads) => {
    const send = capability(engine, engine.sendLinkCustomPreview, 'custom link previews', session);
    const { image, ...preview } = args.preview;
    const resolved = image ? await resolveFile(image, 'preview.image', downloads) : null;
    return send.call(engine, { ...args, preview: { ...preview, image: resolved } });
  },
  'send.buttons': async (engine, { args }, session, downloads) => {
    const send = capability(engine, engine.sendButtons, 'buttons', session);
    const headerImage = args.headerImage ? await resolveFile(args.headerImage, 'headerImage', downloads) : null;
    return send.call(engine, { ...args, headerImage });
  },
  'send.list': async (engine, { args }, session) => capability(engine, engine.sendList, 'lists', session).call(engine, args),
  'send.poll': async (engine, { args }, session) => capability(engine, engine.sendPoll, 'polls', session).call(engine, args),
  'send.pollVote': async (engine, { args }, session) =>
    capability(engine, engine.sendPollVote, 'poll votes', session).call(engine, args),
  'send.location': async (engine, { args }, session) =>
    capability(engine, engine.sendLocation, 'locations', session).call(engine, args),
  'send.contactVcard': async (engine, { args }, session) => {
    const send = capability(engine, engine.sendContactVcard, 'contact cards', session);
    const { contacts, ...rest } = args;
    return send.call(engine, { ...rest, vcards: contacts.map(vcardOf) });
  },
  'send.buttonReply': async (engine, { args }, session) => {
    const send = capability(engine, engine.sendButtonReply, 'button replies', session);
    const { replyTo, ...rest } = args;
    return send.call(engine, { ...rest, reply_to: replyTo ?? args.reply_to });
  },
  'message.forward': async (engine, { args }, session) =>
    capability(engine, engine.forwardMessage, 'forwarding', session).call(engine, args),
  'message.react': async (engine, { args }, session) => capability(engine, engine.react, 'reactions', session).call(engine, args),
  'message.star': async (engine, { args }, session) => capability(engine, engine.star, 'starring', session).call(engine, args),
  'chat.seen': async (engine, { args }, session) => capability(engine, engine.sendSeen, 'read receipts', session).call(engine, args),
  'chat.typing': async (engine, { args }, session) =>
    capability(engine, engine.setTyping, 'typing indicators', session).call(engine, args),
};
