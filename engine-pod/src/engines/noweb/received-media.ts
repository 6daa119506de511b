import type { Media } from '@switchboard/protocol';
import { downloadMediaMessage, type proto, type WAMessage, type WASocket } from '@whiskeysockets/baileys';
import type { Logger } from 'pino';
import type { EngineContext } from '../../engine.js';

/** The media part of a message and what it says of its file. */
function fileOf(content: proto.IMessage): { mimetype: string; filename: string | null } | null {
  const part = content.imageMessage ?? content.videoMessage ?? content.audioMessage ?? content.documentMessage ?? content.stickerMessage;
  if (!part) return null;
  const fallback = content.stickerMessage ? 'image/webp' : 'application/octet-stream';
  return { mimetype: part.mimetype || fallback, filename: content.documentMessage?.fileName || null };
}

export interface ReceivedMediaDeps {
  readonly context: EngineContext;
  readonly socket: () => WASocket | null;
  /** WhatsApp's media host; unset: the library's (`mmg.whatsapp.net`). */
  readonly host?: string | undefined;
  readonly logger: Logger;
}

/**
 * The file of a message, as the record's `media`: downloaded and decrypted by the library (given
 * the socket's reupload request, for files the server has dropped), then kept with the session's
 * media store. Null when the host keeps no media or the download fails: the message
 * still goes out, `hasMedia` true and `media` null, and the failure is logged.
 */
export async function receivedMedia(deps: ReceivedMediaDeps, msg: WAMessage, content: proto.IMessage): Promise<Media | null> {
  const file = fileOf(content);
  if (!file) return null;
  try {
    const socket = deps.socket();
    const data = await downloadMediaMessage(
      msg,
      'buffer',
      deps.host ? { host: deps.host } : {},
      socket ? { logger: deps.logger, reuploadRequest: (message) => socket.updateMediaMessage(message) } : undefined,
    );
    return await deps.context.saveMedia({ ...file, data });
  } catch (error) {
    deps.context.log.warn(
      { session: deps.context.session, messageId: msg.key.id, err: error },
      'NOWEB could not download a received file; its record has media null',
    );
    return null;
  }
}
