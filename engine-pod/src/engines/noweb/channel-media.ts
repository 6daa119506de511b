import { createHash } from 'node:crypto';
import type { Media } from '@switchboard/protocol';
import { getHttpStream, getUrlFromDirectPath, type proto } from '@whiskeysockets/baileys';
import type { EngineContext } from '../../engine.js';
import { limitedTo, MediaTooLargeError } from '../../media/media-limit.js';
import { fileOf } from './received-media.js';

export interface ChannelMediaDeps {
  readonly context: EngineContext;
  /** WhatsApp's media host; unset: the library's (`mmg.whatsapp.net`). */
  readonly host?: string | undefined;
}

/**
 * The file of a channel post, as its record's `media`. Channel (newsletter) files are kept on the
 * media servers unencrypted (the post's part has no mediaKey), so it is a plain GET of its direct
 * path on the media host (never the post's `url`, so a post cannot make the engine fetch another
 * host), streamed into the session's media store under the media limit as received files are,
 * and checked against the post's fileSha256 when it names one (a mismatch keeps nothing). Null
 * when the post has no file, the file is over the limit or the download fails (logged).
 */
export async function channelPostMedia(deps: ChannelMediaDeps, postId: string, content: proto.IMessage | null): Promise<Media | null> {
  const file = content ? fileOf(content) : null;
  if (!file) return null;
  const { part } = file;
  try {
    if (!part.directPath) throw new Error('the post names no direct path for its file');
    if (file.declared > deps.context.mediaMaxBytes) throw new MediaTooLargeError(deps.context.mediaMaxBytes);
    const stream = await getHttpStream(getUrlFromDirectPath(part.directPath, deps.host), { headers: { Origin: 'https://web.whatsapp.com' } });
    const limited = limitedTo(stream as AsyncIterable<Buffer>, deps.context.mediaMaxBytes);
    const data = part.fileSha256?.length ? checkedSha256(limited, Buffer.from(part.fileSha256)) : limited;
    return await deps.context.saveMediaStream({ mimetype: file.mimetype, filename: file.filename }, data);
  } catch (error) {
    deps.context.log.warn(
      { session: deps.context.session, messageId: postId, err: error },
      "NOWEB could not keep a channel post's file; its record has media null",
    );
    return null;
  }
}

/** The bytes as they come, and an error after the last when their SHA-256 is not `expected` (the store then keeps nothing). */
async function* checkedSha256(data: AsyncIterable<Uint8Array>, expected: Buffer): AsyncGenerator<Uint8Array, void, undefined> {
  const hash = createHash('sha256');
  for await (const chunk of data) {
    hash.update(chunk);
    yield chunk;
  }
  if (!hash.digest().equals(expected)) throw new Error("the file does not match the post's fileSha256");
}
