import { z } from 'zod';
import { decodeBase64, HttpUrl } from './chatting-media.js';
import { DEFAULT_SESSION, SessionName } from './ids.js';
import { exactlyOneOf } from './openapi-rules.js';

/**
 * `POST /api/{session}/media/convert/voice` and `.../video` (the peer product's paths): a file by
 * `url` (fetched through the outbound address policy) or base64 `data`, exactly one; null counts
 * as left out, as the peer's clients send it.
 */
function convertRequest(id: string, kind: string, example: string) {
  return z
    .object({
      url: HttpUrl.nullish().meta({ description: `Where the ${kind} file can be downloaded`, examples: [example] }),
      data: z
        .string()
        .min(1)
        .refine((value) => decodeBase64(value) !== null, { message: 'must be base64 (standard or URL-safe alphabet, no "data:" prefix)' })
        .nullish()
        .meta({ description: `The ${kind} file, base64-encoded` }),
    })
    .superRefine((file, ctx) => {
      const given = [file.url, file.data].filter((value) => value !== undefined && value !== null).length;
      if (given === 0) ctx.addIssue({ code: 'custom', path: ['url'], message: 'give url (http or https) or data (base64)' });
      if (given === 2) ctx.addIssue({ code: 'custom', path: ['data'], message: 'give either url or data, not both' });
    })
    .meta({ id, description: `The ${kind} file, by \`url\` or by base64 \`data\` (exactly one)`, ...exactlyOneOf('url', 'data') });
}

export const VoiceFileDTO = convertRequest('VoiceFileDTO', 'audio', 'https://example.com/voice.mp3');
export const VideoFileDTO = convertRequest('VideoFileDTO', 'video', 'https://example.com/video.mov');

/** `GET /api/screenshot?session=`: the session is in the query, as the peer has it. */
export const ScreenshotQuery = z.object({ session: SessionName.default(DEFAULT_SESSION) });
