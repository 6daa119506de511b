import { z } from 'zod';
import { OutgoingMessageId } from './chatting.js';
import { FileInput, VideoFileInput, VoiceFileInput } from './chatting-media.js';
import { ContactId } from './ids.js';

/*
 * Status updates (stories), with the peer product's paths and bodies (`/api/{session}/status/...`).
 * A status is a message to `status@broadcast`, seen by the contacts it names (`contacts`) or, when
 * left out, by the contacts the engine knows.
 */

export const STATUS_CHAT = 'status@broadcast';

const statusFields = {
  id: OutgoingMessageId.nullish().meta({
    description: 'Pre-generated status message id (GET /api/{session}/status/new-message-id), to send one status in batches of contacts',
  }),
  // Any strings, as the peer takes them (its n8n node's default is the placeholder
  // "55xxxxxxxxxxx@c.us"): one that is not a contact id names no one (`reachableContacts`).
  contacts: z
    .array(z.string().max(64, { abort: true }))
    .max(10_000)
    .nullish()
    .meta({
      description: 'The contacts who may see it (`<number>@c.us`; anything else names no one); left out or null: every contact the engine knows',
    }),
};

/** The `contacts` of a status that name someone: what the engine is given. */
export function reachableContacts(contacts: readonly string[] | null | undefined): string[] | null | undefined {
  return contacts?.filter((contact) => ContactId.safeParse(contact).success);
}

const BackgroundColor = z
  .string()
  .regex(/^#[0-9A-Fa-f]{6}([0-9A-Fa-f]{2})?$/, { message: 'must be a colour "#rrggbb" (or "#rrggbbaa")' })
  .default('#38b42f');

export const TextStatus = z
  .object({
    ...statusFields,
    text: z
      .string()
      .min(1)
      .max(700)
      .meta({ examples: ['Have a look! https://github.com/'] }),
    backgroundColor: BackgroundColor,
    font: z.number().int().min(0).max(10).default(0).meta({ description: 'Font of the text, 0 to 10 as WhatsApp numbers them' }),
    linkPreview: z.boolean().default(true),
    linkPreviewHighQuality: z.boolean().default(false),
  })
  .meta({ id: 'TextStatus' });
export type TextStatus = z.infer<typeof TextStatus>;

const Caption = z.string().max(65536).nullish();
const Convert = z.boolean().default(false).meta({ description: 'Convert the file first (ffmpeg): voice to OGG/Opus, video to MP4 (H.264/AAC)' });

export const ImageStatus = z
  .object({
    ...statusFields,
    file: FileInput.refine((file) => file.mimetype.toLowerCase().startsWith('image/'), {
      path: ['mimetype'],
      message: 'must be an image type, e.g. "image/jpeg"',
    }),
    caption: Caption,
  })
  .meta({ id: 'ImageStatus' });
export const VoiceStatus = z
  .object({ ...statusFields, file: VoiceFileInput, convert: Convert, backgroundColor: BackgroundColor })
  .meta({ id: 'VoiceStatus' });
export const VideoStatus = z.object({ ...statusFields, file: VideoFileInput, convert: Convert, caption: Caption }).meta({ id: 'VideoStatus' });

/** The `status.media` command: one op for the three file kinds, `kind` naming which. */
export const MediaStatusArgs = z.discriminatedUnion('kind', [
  ImageStatus.extend({ kind: z.literal('image') }),
  VoiceStatus.extend({ kind: z.literal('voice') }),
  VideoStatus.extend({ kind: z.literal('video') }),
]);
export type MediaStatusArgs = z.infer<typeof MediaStatusArgs>;

export const DeleteStatusRequest = z
  .object({
    id: z
      .string()
      .regex(/^(true_status@broadcast_)?[0-9A-Za-z]{8,64}$/, {
        message: 'must be a status message id: 8-64 letters or digits, or "true_status@broadcast_<id>"',
      })
      .meta({
        description: 'Id of the status to delete: the message id alone, or the full id its send answered (`true_status@broadcast_<id>`)',
        examples: ['AAAAAAAAAAAAAAAAA'],
      }),
    contacts: statusFields.contacts,
  })
  .meta({ id: 'DeleteStatusRequest' });
export type DeleteStatusRequest = z.infer<typeof DeleteStatusRequest>;

/** The message id alone, from either form `DeleteStatusRequest.id` takes. */
export function statusMessageId(id: string): string {
  return id.startsWith(`true_${STATUS_CHAT}_`) ? id.slice(`true_${STATUS_CHAT}_`.length) : id;
}
