import { z } from 'zod';
import { sendFields, withSession } from './chatting.js';
import { MediaFilename, MediaMimetype } from './media.js';
import { exactlyOneOf } from './openapi-rules.js';

const BASE64_CHARS = new Uint8Array(128);
for (const char of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_') BASE64_CHARS[char.charCodeAt(0)] = 1;

/**
 * Standard or URL-safe base64, padded or not, decoded; null when it is not base64. Buffer alone
 * skips characters it does not know, so a typo would send a different file without an error;
 * a loop instead of a regex because the value can be megabytes long.
 */
export function decodeBase64(value: string): Buffer | null {
  let end = value.length;
  while (end > 0 && value.charCodeAt(end - 1) === 61) end--;
  const padding = value.length - end;
  if (padding > 2 || (padding > 0 && value.length % 4 !== 0) || end % 4 === 1) return null;
  for (let i = 0; i < end; i++) {
    const code = value.charCodeAt(i);
    if (code > 127 || BASE64_CHARS[code] === 0) return null;
  }
  return Buffer.from(value, 'base64');
}

export const HttpUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http or https URL' })
  .max(2048)
  .meta({ examples: ['https://example.com/picture.jpg'] });

const Base64Data = z
  .string()
  .min(1)
  .refine((value) => decodeBase64(value) !== null, {
    message: 'must be base64 (standard or URL-safe alphabet, no "data:" prefix, no line breaks)',
  })
  .meta({ description: 'Base64-encoded content of the file', contentEncoding: 'base64' });

/** Exactly one source: the engine fetches `url`, or decodes `data`. */
function oneSource(file: { url?: string | undefined; data?: string | undefined }, ctx: z.core.$RefinementCtx): void {
  if (file.url !== undefined && file.data !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['data'], message: 'give either url or data, not both' });
  } else if (file.url === undefined && file.data === undefined) {
    ctx.addIssue({ code: 'custom', path: ['url'], message: 'give url (http or https) or data (base64)' });
  }
}

/**
 * A file to send: `{mimetype, filename?, url}` (the reference's RemoteFile) or
 * `{mimetype, filename?, data}` (BinaryFile), as one object so that a mistake is reported at its
 * own field rather than as "matches neither".
 */
function fileInput<M extends z.ZodType<string, string | undefined>>(id: string, mimetype: M) {
  return z
    .object({
      mimetype,
      filename: MediaFilename.nullish(),
      url: HttpUrl.optional().meta({ description: 'Where the engine downloads the file' }),
      data: Base64Data.optional(),
    })
    .superRefine(oneSource)
    .meta({ id, description: 'The file, by `url` or by base64 `data` (exactly one)', ...exactlyOneOf('url', 'data') });
}

export const FileInput = fileInput('RemoteOrBinaryFile', MediaMimetype);
export type FileInput = z.infer<typeof FileInput>;
export const VoiceFileInput = fileInput('VoiceRemoteOrBinaryFile', MediaMimetype.default('audio/ogg; codecs=opus'));
export const VideoFileInput = fileInput('VideoRemoteOrBinaryFile', MediaMimetype.default('video/mp4'));

const Caption = z.string().max(65536).nullish();
const Convert = z.boolean().default(false).meta({ description: 'Convert the file to the format the messaging service needs before sending' });

export const MessageImageArgs = z.object({ ...sendFields, file: FileInput, caption: Caption });
export const MessageImageRequest = withSession(MessageImageArgs).meta({ id: 'MessageImageRequest' });

export const MessageFileArgs = z.object({ ...sendFields, file: FileInput, caption: Caption });
export const MessageFileRequest = withSession(MessageFileArgs).meta({ id: 'MessageFileRequest' });

export const MessageVoiceArgs = z.object({ ...sendFields, file: VoiceFileInput, convert: Convert });
export const MessageVoiceRequest = withSession(MessageVoiceArgs).meta({ id: 'MessageVoiceRequest' });

export const MessageVideoArgs = z.object({
  ...sendFields,
  file: VideoFileInput,
  caption: Caption,
  asNote: z.boolean().default(false).meta({ description: 'Send as a video note (a round video)' }),
  convert: Convert,
});
export const MessageVideoRequest = withSession(MessageVideoArgs).meta({ id: 'MessageVideoRequest' });

/** The `send.media` command: one op for the four media routes, `kind` naming which. */
export const SendMediaArgs = z.discriminatedUnion('kind', [
  MessageImageArgs.extend({ kind: z.literal('image') }),
  MessageFileArgs.extend({ kind: z.literal('file') }),
  MessageVoiceArgs.extend({ kind: z.literal('voice') }),
  MessageVideoArgs.extend({ kind: z.literal('video') }),
]);
export type SendMediaArgs = z.infer<typeof SendMediaArgs>;
export type MediaKind = SendMediaArgs['kind'];

/** The preview's picture: `{url}` or `{data}`; the MIME type is optional (taken from the download). */
export const PreviewImage = z
  .object({
    url: HttpUrl.optional(),
    data: Base64Data.optional(),
    mimetype: MediaMimetype.optional(),
  })
  .superRefine(oneSource)
  .meta({ id: 'LinkPreviewImage', description: 'The image, by `url` or by base64 `data` (exactly one)', ...exactlyOneOf('url', 'data') });

export const LinkPreviewData = z
  .object({
    url: HttpUrl,
    title: z.string().max(1024),
    description: z.string().max(4096).default(''),
    image: PreviewImage.nullish(),
  })
  .meta({ id: 'LinkPreviewData' });

export const MessageLinkCustomPreviewArgs = z
  .object({
    ...sendFields,
    text: z.string().min(1).max(65536).meta({ description: 'The text; it must include preview.url' }),
    linkPreviewHighQuality: z.boolean().default(true),
    preview: LinkPreviewData,
  })
  .refine((args) => args.text.includes(args.preview.url), { path: ['text'], message: 'must include preview.url' });
export const MessageLinkCustomPreviewRequest = withSession(MessageLinkCustomPreviewArgs).meta({
  id: 'MessageLinkCustomPreviewRequest',
});

/** Deprecated `POST /api/sendLinkPreview`: the URL is the text, with a preview titled `title`. */
export const MessageLinkPreviewRequest = withSession(z.object({ ...sendFields, url: HttpUrl, title: z.string().max(1024) })).meta({
  id: 'MessageLinkPreviewRequest',
});
