import { z } from 'zod';
import { FileInput } from './chatting-media.js';
import { ContactId } from './ids.js';

/** `GET /api/{session}/profile` (spec 4.4); field names follow the reference. */
export const MyProfile = z
  .object({
    id: ContactId,
    name: z.string(),
    picture: z.string().nullable().meta({ description: 'Where the profile picture can be downloaded; null when there is none' }),
  })
  .meta({ id: 'MyProfile' });
export type MyProfile = z.infer<typeof MyProfile>;

/** WhatsApp's own limits: a name of up to 25 characters, an About text of up to 139. */
export const ProfileNameRequest = z
  .object({
    name: z
      .string()
      .trim()
      .min(1)
      .max(25)
      .meta({ examples: ['My New Name'] }),
  })
  .meta({ id: 'ProfileNameRequest' });
export type ProfileNameRequest = z.infer<typeof ProfileNameRequest>;

export const ProfileStatusRequest = z
  .object({
    status: z
      .string()
      .min(1)
      .max(139)
      .meta({ description: 'The About text', examples: ['Hey there! I am using WhatsApp'] }),
  })
  .meta({ id: 'ProfileStatusRequest' });
export type ProfileStatusRequest = z.infer<typeof ProfileStatusRequest>;

/** The picture by URL (the engine fetches it) or inline as base64; an image. */
export const ProfilePictureRequest = z
  .object({
    file: FileInput.refine((file) => file.mimetype.toLowerCase().startsWith('image/'), {
      path: ['mimetype'],
      message: 'must be an image type, e.g. "image/jpeg"',
    }).meta({ description: 'An image: `mimetype` starts with "image/"' }),
  })
  .meta({ id: 'ProfilePictureRequest' });
export type ProfilePictureRequest = z.infer<typeof ProfilePictureRequest>;

/** The answer of profile changes (spec 4.4 `Result`). */
export const Result = z.object({ success: z.boolean() }).meta({ id: 'Result' });
export type Result = z.infer<typeof Result>;
