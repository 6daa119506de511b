import type { Media, MessageRecord } from '@switchboard/protocol';
import type { OutgoingMedia } from '../../capabilities/chatting.js';
import type { EngineContext } from '../../engine.js';
import type { WppMessage } from './wpp-messages.js';
import { wppRecordId } from './wpp-messages.js';
import { wppSendOptions } from './wpp-send-options.js';

/** The slice of WPPConnect's client files go through. */
export interface WppMediaClient {
  /** `WPP.chat.sendFileMessage` in the page, the file as a data URL; answers the message's id and ack. */
  sendFile(to: string, dataUrl: string, options: WppFileOptions): Promise<{ id: string; ack: number }>;
  getMessageById(id: string): Promise<WppMessage>;
  /** `WPP.chat.downloadMedia` in the page (WhatsApp Web fetches and decrypts it): the file as a data URL. */
  downloadMedia(messageId: string): Promise<string>;
}

/** wa-js's file options (`FileMessageOptions` and its kinds') the engine sets. */
export interface WppFileOptions {
  readonly type: 'image' | 'document' | 'audio' | 'video';
  readonly mimetype?: string;
  readonly filename?: string;
  readonly caption?: string;
  readonly isPtt?: boolean;
  readonly isPtv?: boolean;
  readonly quotedMsg?: string;
  readonly messageId?: string;
}

/** What the engine's send gate runs (wpp-engine.ts): one send, the message it made. */
export type WppSend = (chatId: string, run: (client: WppMediaClient) => Promise<WppMessage>) => Promise<MessageRecord>;

const TYPES = { image: 'image', file: 'document', voice: 'audio', video: 'video' } as const;

/**
 * Spec 4.5's files on WPP: WPPConnect's `sendFile` (wa-js's `sendFileMessage`, the upload
 * WhatsApp Web does) with the kind the request names: a voice note is audio as PTT, a video note
 * a PTV. wa-js answers the id: the message is read back by it, as for a location.
 */
export function sendWppMedia(send: WppSend, args: OutgoingMedia): Promise<MessageRecord> {
  const { file } = args;
  const caption = 'caption' in args && args.caption ? args.caption : undefined;
  const options: WppFileOptions = {
    type: TYPES[args.kind],
    mimetype: file.mimetype,
    ...(file.filename ? { filename: file.filename } : {}),
    ...(caption ? { caption } : {}),
    ...(args.kind === 'voice' ? { isPtt: true } : {}),
    ...(args.kind === 'video' && args.asNote ? { isPtv: true } : {}),
    ...wppSendOptions(args),
  };
  // wa-js parses the data URL strictly (no parameters such as "; codecs=opus"): the whole type goes as `mimetype`.
  const dataUrl = `data:${file.mimetype.split(';')[0]!.trim()};base64,${file.data.toString('base64')}`;
  return send(args.chatId, async (client) => {
    const { id } = await client.sendFile(args.chatId, dataUrl, options);
    return client.getMessageById(id);
  });
}

/** Received messages whose file is being kept, by id: one download however many events ask. */
const KEPT_DOWNLOADS = 256;

/**
 * The file of a received message, as the record's `media`: WPPConnect's `downloadMedia` (wa-js
 * has the page download and decrypt it), kept with the session's media store as WEBJS's
 * received-media.ts does. Null when the host keeps no media, the file declares more than the
 * host keeps, or the download fails: the message still goes out, `hasMedia` true and `media`
 * null, and the reason is logged.
 */
export class WppReceivedMedia {
  private readonly downloads = new Map<string, Promise<Media | null>>();

  constructor(private readonly context: EngineContext) {}

  of(client: WppMediaClient, message: WppMessage): Promise<Media | null> {
    const id = wppRecordId(message);
    let download = this.downloads.get(id);
    if (!download) {
      download = this.download(client, message);
      this.downloads.set(id, download);
      if (this.downloads.size > KEPT_DOWNLOADS) this.downloads.delete(this.downloads.keys().next().value!);
    }
    return download;
  }

  private async download(client: WppMediaClient, message: WppMessage): Promise<Media | null> {
    const id = wppRecordId(message);
    const failed = (reason: unknown) => {
      this.context.log.warn(
        { session: this.context.session, messageId: id, err: reason },
        'WPP could not download a received file; its record has media null',
      );
      return null;
    };
    if (typeof message.size === 'number' && message.size > this.context.mediaMaxBytes) {
      return failed(new Error(`the file is ${message.size} bytes; this host keeps files of at most ${this.context.mediaMaxBytes}`));
    }
    try {
      const file = parseDataUrl(await client.downloadMedia(typeof message.id === 'string' ? message.id : message.id._serialized));
      if (!file) return failed(new Error('WhatsApp Web gave no file (expired, or not fetched)'));
      return await this.context.saveMedia({
        mimetype: file.mimetype || (typeof message.mimetype === 'string' ? message.mimetype : '') || 'application/octet-stream',
        filename: typeof message.filename === 'string' && message.filename ? message.filename : null,
        data: file.data,
      });
    } catch (error) {
      return failed(error);
    }
  }
}

/** `data:<mimetype>;base64,<data>` as wa-js's `blobToBase64` writes it; null for anything else. */
function parseDataUrl(url: unknown): { mimetype: string; data: Buffer } | null {
  if (typeof url !== 'string') return null;
  const match = /^data:([^,]*?)(;base64)?,(.*)$/s.exec(url);
  if (!match?.[2]) return null;
  return { mimetype: match[1] ?? '', data: Buffer.from(match[3] ?? '', 'base64') };
}
