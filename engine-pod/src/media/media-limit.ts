import { DEFAULT_MEDIA_MAX_BYTES, MEDIA_MAX_BYTES_VARIABLE } from '@switchboard/protocol';

/**
 * The largest received file kept (`SWITCHBOARD_MEDIA_MAX_BYTES`, protocol's default, 100 MiB).
 * The service allows documents of 2 GB, which a stranger can send; a file over the limit is not
 * kept (its record has `media` null).
 */
export { DEFAULT_MEDIA_MAX_BYTES, MEDIA_MAX_BYTES_VARIABLE };

/** A received file was larger than the limit: nothing of it was kept. */
export class MediaTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`the file is larger than the media limit of ${limit} bytes (${MEDIA_MAX_BYTES_VARIABLE}); it was not kept`);
    this.name = 'MediaTooLargeError';
  }
}

/**
 * The bytes of `data` as they come, and a MediaTooLargeError as soon as there are more than
 * `maxBytes`: the consumer (a media store) then keeps nothing, and the source is closed (a
 * download is cut short rather than read to its end).
 */
export async function* limitedTo(data: AsyncIterable<Uint8Array>, maxBytes: number): AsyncGenerator<Uint8Array, void, undefined> {
  let size = 0;
  for await (const chunk of data) {
    size += chunk.length;
    if (size > maxBytes) throw new MediaTooLargeError(maxBytes);
    yield chunk;
  }
}
