import { z } from 'zod';
import { SessionName } from './ids.js';

/**
 * A media type as RFC 9110 writes it, with parameters: WhatsApp voice notes are
 * `audio/ogg; codecs=opus`. It becomes the download's Content-Type, so nothing else gets in.
 */
export const MediaMimetype = z
  .string()
  .max(255, { abort: true })
  .regex(/^[A-Za-z0-9][\w!#$&^.+-]*\/[A-Za-z0-9][\w!#$&^.+-]*(\s*;\s*[\w!#$&^.+-]+=("[^"\r\n]*"|[\w!#$&^.+-]+))*$/, {
    message: 'must be a media type, e.g. "image/jpeg" or "audio/ogg; codecs=opus"',
  })
  .meta({ examples: ['image/jpeg'] });

/** A file name as the sender gave it: no path, no control characters. */
export const MediaFilename = z
  .string()
  .min(1)
  .max(255, { abort: true })
  // Control characters spelled as ranges (exactly \p{Cc}): fuzzers and generated clients cannot read \p{...}.
  // eslint-disable-next-line no-control-regex -- refusing control characters is what it is for
  .regex(/^[^/\\\x00-\x1f\x7f-\x9f]+$/, { message: 'must be a file name without "/", "\\" or control characters' })
  .meta({ examples: ['report.pdf'] });

/** A file a simulated contact sends a SANDBOX session (the shape of the reference's `BinaryFile`). */
export const SimulatedMediaFile = z
  .object({
    mimetype: MediaMimetype,
    filename: MediaFilename.optional(),
    data: z.base64().min(1).meta({ description: 'The bytes, base64-encoded' }),
  })
  .meta({ id: 'SimulatedMediaFile' });

/**
 * Stored media ids: 128 random bits in base64url, so they cannot be guessed. The download path
 * may add an extension (`<id>.jpg`) so that clients which go by the name see the type.
 */
const MediaFileName = /^([A-Za-z0-9_-]{22})(\.[A-Za-z0-9]{1,16})?$/;

/** `GET /api/files/{session}/{fileId}`: the address `media.url` gives. */
export const MediaFileParams = z.object({
  session: SessionName,
  fileId: z
    .string()
    .regex(MediaFileName, { message: 'must be a file id as media.url gives it' })
    .meta({
      description: 'The media id, with or without the extension media.url adds',
      examples: ['q3Yb1b7yQ2uFJ3cT0gqJ5A.jpg'],
    }),
});

/** The media id in a valid `fileId` (its extension dropped). */
export function mediaIdOf(fileId: string): string {
  return MediaFileName.exec(fileId)?.[1] ?? fileId;
}

/**
 * The largest received file kept unless `SWITCHBOARD_MEDIA_MAX_BYTES` says otherwise: NOWEB's cap
 * on channel files, now every received file's on every engine (engine-pod/src/media/media-limit.ts,
 * engines/gows/internal/engine/media-spool.go). The operator sizes a GOWS pod's /tmp from it.
 */
export const DEFAULT_MEDIA_MAX_BYTES = 100 * 1024 * 1024;
export const MEDIA_MAX_BYTES_VARIABLE = 'SWITCHBOARD_MEDIA_MAX_BYTES';
