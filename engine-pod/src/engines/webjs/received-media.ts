import type { Media } from '@switchboard/protocol';
import type { EngineContext } from '../../engine.js';
import type { WebjsMessage } from './webjs-client.js';
import { recordId } from './webjs-ids.js';

/** Received messages whose file is being kept, by id: `message_create` and `message` share one download. */
const KEPT_DOWNLOADS = 256;

/**
 * The file of a received message, as the record's `media`: the library's `Message.downloadMedia`
 * (the browser fetches and decrypts it, base64 in `MessageMedia.data`), then kept with the
 * session's media store, as NOWEB's received-media.ts does. Null when the host keeps no media, the
 * file is larger than it keeps (`mediaMaxBytes`, SWITCHBOARD_MEDIA_MAX_BYTES), or the download fails (WhatsApp Web answers nothing for a file it cannot fetch, or the browser
 * throws): the message still goes out, `hasMedia` true and `media` null, and the failure is logged.
 */
export class WebjsReceivedMedia {
  private readonly downloads = new Map<string, Promise<Media | null>>();

  constructor(private readonly context: EngineContext) {}

  /** One download per message, however many of its events ask. */
  of(message: WebjsMessage): Promise<Media | null> {
    const id = recordId(message.id);
    let download = this.downloads.get(id);
    if (!download) {
      download = this.download(message);
      this.downloads.set(id, download);
      if (this.downloads.size > KEPT_DOWNLOADS) this.downloads.delete(this.downloads.keys().next().value!);
    }
    return download;
  }

  private async download(message: WebjsMessage): Promise<Media | null> {
    const failed = (reason: unknown) => {
      this.context.log.warn(
        { session: this.context.session, messageId: recordId(message.id), err: reason },
        'WEBJS could not download a received file; its record has media null',
      );
      return null;
    };
    // The size WhatsApp Web's message declares: a file over the limit is not fetched at all.
    const declared = message._data.size;
    if (typeof declared === 'number' && declared > this.context.mediaMaxBytes) return failed(tooLarge(declared, this.context.mediaMaxBytes));
    try {
      const file = await message.downloadMedia();
      if (!file?.data) return failed(new Error('WhatsApp Web gave no file (expired, or not fetched)'));
      // A message that declared no size (or a smaller one) is held to the limit by what came.
      const bytes = Buffer.byteLength(file.data, 'base64');
      if (bytes > this.context.mediaMaxBytes) return failed(tooLarge(bytes, this.context.mediaMaxBytes));
      return await this.context.saveMedia({
        mimetype: file.mimetype || 'application/octet-stream',
        filename: file.filename || null,
        data: Buffer.from(file.data, 'base64'),
      });
    } catch (error) {
      return failed(error);
    }
  }
}

function tooLarge(bytes: number, max: number): Error {
  return new Error(`the file is ${bytes} bytes; this host keeps files of at most ${max}`);
}
