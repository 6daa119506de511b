import type { Media } from '@switchboard/protocol';
import { downloadMediaMessage, type proto, type WAMessage, type WASocket } from '@whiskeysockets/baileys';
import type { Logger } from 'pino';
import type { EngineContext } from '../../engine.js';
import { limitedTo, MediaTooLargeError } from '../../media/media-limit.js';

type MediaPart =
  | proto.Message.IImageMessage
  | proto.Message.IVideoMessage
  | proto.Message.IAudioMessage
  | proto.Message.IDocumentMessage
  | proto.Message.IStickerMessage;

/**
 * The media part of a message (or channel post), what it says of its file, and the size it
 * declares; null when it has none.
 */
export function fileOf(content: proto.IMessage): { part: MediaPart; mimetype: string; filename: string | null; declared: number } | null {
  const part: MediaPart | null | undefined =
    content.imageMessage ?? content.videoMessage ?? content.audioMessage ?? content.documentMessage ?? content.stickerMessage;
  if (!part) return null;
  const fallback = content.stickerMessage ? 'image/webp' : 'application/octet-stream';
  return { part, mimetype: part.mimetype || fallback, filename: content.documentMessage?.fileName || null, declared: Number(part.fileLength ?? 0) };
}

export interface ReceivedMediaDeps {
  readonly context: EngineContext;
  readonly socket: () => WASocket | null;
  /** WhatsApp's media host; unset: the library's (`mmg.whatsapp.net`). */
  readonly host?: string | undefined;
  readonly logger: Logger;
}

/**
 * The file of a message, as the record's `media`: downloaded and decrypted by the library as a
 * stream (given the socket's reupload request, for files the server has dropped) straight into
 * the session's media store, never held whole. A file that declares more than the media limit
 * is not downloaded, and one that turns out larger is cut off at the limit. Null when the host
 * keeps no media, the file is over the limit or the download fails: the message still goes out,
 * `hasMedia` true and `media` null, and the reason is logged.
 */
export async function receivedMedia(deps: ReceivedMediaDeps, msg: WAMessage, content: proto.IMessage): Promise<Media | null> {
  const file = fileOf(content);
  if (!file) return null;
  try {
    if (file.declared > deps.context.mediaMaxBytes) throw new MediaTooLargeError(deps.context.mediaMaxBytes);
    const socket = deps.socket();
    const data = await downloadMediaMessage(
      msg,
      'stream',
      deps.host ? { host: deps.host } : {},
      socket ? { logger: deps.logger, reuploadRequest: (message) => socket.updateMediaMessage(message) } : undefined,
    );
    return await deps.context.saveMediaStream({ mimetype: file.mimetype, filename: file.filename }, limitedTo(data, deps.context.mediaMaxBytes));
  } catch (error) {
    deps.context.log.warn(
      { session: deps.context.session, messageId: msg.key.id, err: error },
      'NOWEB could not keep a received file; its record has media null',
    );
    return null;
  }
}
