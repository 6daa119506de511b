import { randomBytes } from 'node:crypto';
import mime from 'mime-types';
import type { StoredMedia } from './media-store.js';

/** 128 random bits: a media id is its own capability and must not be guessable. */
export function newMediaId(): string {
  return randomBytes(16).toString('base64url');
}

/**
 * `media.url` of a stored file: `<base>/api/files/<session>/<id>.<ext>`. The extension (from the
 * file name, else the media type) is for clients that judge a file by its name; the gateway
 * reads only the id.
 */
export function mediaUrl(baseUrl: string, stored: Pick<StoredMedia, 'session' | 'id' | 'mimetype' | 'filename'>): string {
  const extension = /\.([A-Za-z0-9]{1,16})$/.exec(stored.filename ?? '')?.[1] ?? mime.extension(stored.mimetype);
  // The lookbehind starts the match at the first "/" of a run only: linear however long the run.
  return `${baseUrl.replace(/(?<!\/)\/+$/, '')}/api/files/${stored.session}/${stored.id}${extension ? `.${extension}` : ''}`;
}
