import { createHash } from 'node:crypto';
import type { Media } from '@switchboard/protocol';
import { getHttpStream, getUrlFromDirectPath, type proto } from '@whiskeysockets/baileys';
import type { EngineContext } from '../../engine.js';

/** Largest channel file kept (the service's own limit for a document is 2 GB; a preview needs far less). */
const MAX_BYTES = 100 * 1024 * 1024;

export interface ChannelMediaDeps {
  readonly context: EngineContext;
  /** WhatsApp's media host; unset: the library's (`mmg.whatsapp.net`). */
  readonly host?: string | undefined;
}

/**
 * The file of a channel post, as its record's `media`. Channel (newsletter) files are kept on the
 * media servers unencrypted (the post's part has no mediaKey), so it is a plain GET of its direct
 * path on the media host (never the post's `url`, so a post cannot make the engine fetch another
 * host), checked against the post's fileSha256 when it names one, then kept with the session's
 * media store. Null when the post has no file or the download fails (logged).
 */
export async function channelPostMedia(deps: ChannelMediaDeps, postId: string, content: proto.IMessage | null): Promise<Media | null> {
  const part = content?.imageMessage ?? content?.videoMessage ?? content?.audioMessage ?? content?.documentMessage ?? content?.stickerMessage;
  if (!content || !part) return null;
  const mimetype = part.mimetype || (content.stickerMessage ? 'image/webp' : 'application/octet-stream');
  try {
    if (!part.directPath) throw new Error('the post names no direct path for its file');
    const stream = await getHttpStream(getUrlFromDirectPath(part.directPath, deps.host), { headers: { Origin: 'https://web.whatsapp.com' } });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_BYTES) throw new Error(`the file is larger than ${MAX_BYTES} bytes`);
      chunks.push(chunk);
    }
    const data = Buffer.concat(chunks);
    if (part.fileSha256?.length && !createHash('sha256').update(data).digest().equals(Buffer.from(part.fileSha256))) {
      throw new Error("the file does not match the post's fileSha256");
    }
    return await deps.context.saveMedia({ mimetype, filename: content.documentMessage?.fileName || null, data });
  } catch (error) {
    deps.context.log.warn(
      { session: deps.context.session, messageId: postId, err: error },
      "NOWEB could not download a channel post's file; its record has media null",
    );
    return null;
  }
}
