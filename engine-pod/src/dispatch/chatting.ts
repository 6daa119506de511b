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

/**
 * Spec 4.5. Files are downloaded or decoded here, once for every engine, and only after the
 * engine is known to support the send: engines get bytes, never URLs.
 */
export const chattingHandlers: CommandHandlers<ChattingOp> = {
  'send.text': async (engine, command) => engine.sendText(command.args),
  'send.media': async (engine, command, session, downloads) => {
    const { args } = command;
    const send = capability(engine, engine.sendMedia, command, session);
    return send.call(engine, { ...args, file: await resolveFile(args.file, 'file', downloads) });
  },
  'send.linkCustomPreview': async (engine, command, session, downloads) => {
    const { args } = command;
    const send = capability(engine, engine.sendLinkCustomPreview, command, session);
    const { image, ...preview } = args.preview;
    const resolved = image ? await resolveFile(image, 'preview.image', downloads) : null;
    return send.call(engine, { ...args, preview: { ...preview, image: resolved } });
  },
  'send.buttons': async (engine, command, session, downloads) => {
    const { args } = command;
    const send = capability(engine, engine.sendButtons, command, session);
    const headerImage = args.headerImage ? await resolveFile(args.headerImage, 'headerImage', downloads) : null;
    return send.call(engine, { ...args, headerImage });
  },
  'send.list': async (engine, command, session) => capability(engine, engine.sendList, command, session).call(engine, command.args),
  'send.poll': async (engine, command, session) => capability(engine, engine.sendPoll, command, session).call(engine, command.args),
  'send.pollVote': async (engine, command, session) => capability(engine, engine.sendPollVote, command, session).call(engine, command.args),
  'send.location': async (engine, command, session) => capability(engine, engine.sendLocation, command, session).call(engine, command.args),
  'send.contactVcard': async (engine, command, session) => {
    const { args } = command;
    const send = capability(engine, engine.sendContactVcard, command, session);
    const { contacts, ...rest } = args;
    return send.call(engine, { ...rest, vcards: contacts.map(vcardOf) });
  },
  'send.buttonReply': async (engine, command, session) => {
    const { args } = command;
    const send = capability(engine, engine.sendButtonReply, command, session);
    const { replyTo, ...rest } = args;
    return send.call(engine, { ...rest, reply_to: replyTo ?? args.reply_to });
  },
  'message.forward': async (engine, command, session) => capability(engine, engine.forwardMessage, command, session).call(engine, command.args),
  'message.react': async (engine, command, session) => capability(engine, engine.react, command, session).call(engine, command.args),
  'message.star': async (engine, command, session) => capability(engine, engine.star, command, session).call(engine, command.args),
  'chat.seen': async (engine, command, session) => capability(engine, engine.sendSeen, command, session).call(engine, command.args),
  'chat.typing': async (engine, command, session) => capability(engine, engine.setTyping, command, session).call(engine, command.args),
};
