import { randomBytes } from 'node:crypto';
import type { MessagePoll } from '@switchboard/protocol';
import {
  type AnyMediaMessageContent,
  extractImageThumb,
  generateForwardMessageContent,
  generateWAMessageContent,
  type MediaGenerationOptions,
  prepareWAMessageMedia,
  proto,
  type WAMediaUploadFunction,
  type WAMessage,
  type WAUrlInfo,
} from '@whiskeysockets/baileys';
import type { CommandArgs, OutgoingLinkPreview, OutgoingMedia } from '../../capabilities/chatting.js';
import { CommandError, invalidField } from '../../command-error.js';
import { notSupported } from '../../command-rules.js';

/*
 * The library's message content for each kind of send (spec 4.5), built as WhatsApp's own apps
 * build it. Files are encrypted and uploaded to the media host the server names (`media_conn`);
 * nothing here fetches a URL: previews are the caller's, not fetched.
 */

/** What building media content needs: the library's upload (to the host `media_conn` names) and logger. */
export interface MediaUpload {
  /** The session sending, named in a refusal. */
  readonly session: string;
  readonly upload: WAMediaUploadFunction;
  readonly logger: NonNullable<MediaGenerationOptions['logger']>;
}

export function locationContent(args: CommandArgs<'send.location'>): proto.IMessage {
  return {
    locationMessage: {
      degreesLatitude: args.latitude,
      degreesLongitude: args.longitude,
      ...(args.title ? { name: args.title } : {}),
    },
  };
}

/** One card is a contact message; several are a contacts array, as the phone sends them. */
export function contactsContent(vcards: readonly string[]): proto.IMessage {
  const contacts = vcards.map((vcard) => ({ displayName: displayNameOf(vcard), vcard }));
  if (contacts.length === 1) return { contactMessage: contacts[0]! };
  return { contactsArrayMessage: { displayName: `${contacts.length} contacts`, contacts } };
}

/** The vCard's `FN`, unescaped (RFC 6350 3.4); '' when it has none. */
function displayNameOf(vcard: string): string {
  // Line by line: a multiline pattern would be tried from every line start (quadratic on many).
  const line = vcard.split(/\r?\n/).find((candidate) => /^FN(?:;[^:]*)?:/i.test(candidate));
  const fn = line?.slice(line.indexOf(':') + 1) ?? '';
  return fn.trim().replace(/\\([\\,;nN])/g, (_, char: string) => (char === 'n' || char === 'N' ? '\n' : char));
}

/**
 * A poll, as the library makes one: V3 for a single answer, the first version for several. The
 * secret travels with the poll: every voter encrypts their vote with it.
 */
export function pollContent(poll: MessagePoll): proto.IMessage {
  const creation = {
    name: poll.name,
    options: poll.options.map((optionName) => ({ optionName })),
    selectableOptionsCount: poll.multipleAnswers ? 0 : 1,
  };
  return {
    messageContextInfo: { messageSecret: randomBytes(32) },
    ...(poll.multipleAnswers ? { pollCreationMessage: creation } : { pollCreationMessageV3: creation }),
  };
}

export function buttonReplyContent(args: { selectedButtonID: string; selectedDisplayText: string }): proto.IMessage {
  return {
    buttonsResponseMessage: {
      selectedButtonId: args.selectedButtonID,
      selectedDisplayText: args.selectedDisplayText,
      type: proto.Message.ButtonsResponseMessage.Type.DISPLAY_TEXT,
    },
  };
}

/** The original's content, marked forwarded unless it is the account's own (as the apps do). */
export function forwardContent(original: WAMessage): proto.IMessage {
  return generateForwardMessageContent(original, false);
}

/** The thumbnail width of link previews, the library's own. */
const PREVIEW_THUMBNAIL_WIDTH = 192;

/**
 * Text with the caller's preview: title, description and a JPEG thumbnail made from the image.
 * High quality also uploads the image (a `thumbnail-link`), which phones show full width.
 */
export async function linkPreviewContent(args: OutgoingLinkPreview, media: MediaUpload): Promise<proto.IMessage> {
  const { url, title, description, image } = args.preview;
  const info: WAUrlInfo = { 'canonical-url': url, 'matched-text': url, title, description };
  if (image) {
    const thumbnail = await extractImageThumb(image.data, PREVIEW_THUMBNAIL_WIDTH).catch(() => {
      throw invalidField('preview.image', 'is not an image the engine can read (JPEG, PNG, WebP, GIF)');
    });
    // The library types the thumbnail as any: it is the JPEG it made, a Buffer.
    const jpeg = thumbnail.buffer as Buffer;
    info.jpegThumbnail = jpeg;
    if (args.linkPreviewHighQuality) {
      // The library's any, made explicit: it types jpegThumbnail here as a string and is handed the
      // Buffer above, as before.
      const { imageMessage } = await prepareWAMessageMedia(
        {
          image: image.data,
          jpegThumbnail: jpeg as unknown as string,
          width: thumbnail.original.width as number,
          height: thumbnail.original.height as number,
        },
        { upload: media.upload, logger: media.logger, mediaTypeOverride: 'thumbnail-link' },
      ).catch(uploadFailed);
      info.highQualityThumbnail = imageMessage ?? undefined;
    }
  }
  return generateWAMessageContent({ text: args.text, linkPreview: info }, { upload: media.upload, logger: media.logger });
}

/**
 * An image, document, voice note (`ptt`) or video (a round `ptv` note with `asNote`), encrypted
 * and uploaded by the library. It makes thumbnails, sizes and durations where it can read the
 * file; where it cannot, the message goes without them.
 */
export async function mediaContent(args: OutgoingMedia, media: MediaUpload): Promise<proto.IMessage> {
  const { data, mimetype, filename } = args.file;
  if ((args.kind === 'voice' || args.kind === 'video') && args.convert) {
    const send = args.kind === 'voice' ? 'OGG/Opus audio' : 'MP4 (H.264/AAC) video';
    throw notSupported(media.session, 'NOWEB', `converting files (\`convert\`): it sends files as they are; send ${send} with convert false`, {
      field: 'convert',
    });
  }
  const caption = 'caption' in args && args.caption ? { caption: args.caption } : {};
  let content: AnyMediaMessageContent;
  switch (args.kind) {
    case 'image':
      content = { image: data, mimetype, ...caption };
      break;
    case 'file':
      content = { document: data, mimetype, fileName: filename ?? 'file', ...caption };
      break;
    case 'voice':
      content = { audio: data, mimetype, ptt: true };
      break;
    case 'video':
      content = { video: data, mimetype, ...caption, ...(args.asNote ? { ptv: true } : {}) };
      break;
  }
  return generateWAMessageContent(content, { upload: media.upload, logger: media.logger }).catch(uploadFailed);
}

function uploadFailed(error: unknown): never {
  if (error instanceof CommandError) throw error;
  throw new CommandError('ENGINE_ERROR', `NOWEB could not upload the file: ${(error as Error).message}`);
}
