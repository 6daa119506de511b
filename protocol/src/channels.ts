import { z } from 'zod';
import { FileInput } from './chatting-media.js';
import { MessageRecord } from './message.js';
import { SessionName } from './ids.js';
import { QueryBoolean } from './session.js';

/*
 * Channels (WhatsApp newsletters), with the peer product's paths, fields and statuses
 * (`/api/{session}/channels...`). A channel is named by its id, `<digits>@newsletter`; reading
 * one (and previewing its posts) also takes its invite code or invite link.
 */

export const CHANNEL_INVITE_PREFIX = 'https://www.whatsapp.com/channel/';

export const NewsletterId = z
  .string()
  .regex(/^\d{1,40}@newsletter$/, { message: 'must be a channel id: digits then "@newsletter", e.g. "123123123@newsletter"' })
  .meta({ description: 'WhatsApp channel id', examples: ['123123123@newsletter'] });

const INVITE_CODE = /^[0-9A-Za-z_-]{6,64}$/;

/**
 * What a channel lookup names: its id, or its invite code given alone (`0029Va4K0PZ5a245NkngBA2M`)
 * or as the invite link (`https://www.whatsapp.com/channel/0029Va...`). Null when it is neither.
 */
export function channelRef(value: string): ChannelRef | null {
  if (NewsletterId.safeParse(value).success) return { by: 'id', key: value };
  const code = value.startsWith(CHANNEL_INVITE_PREFIX) ? value.slice(CHANNEL_INVITE_PREFIX.length).replace(/\/$/, '') : value;
  return INVITE_CODE.test(code) ? { by: 'invite', key: code } : null;
}

export const ChannelRef = z.discriminatedUnion('by', [
  z.object({ by: z.literal('id'), key: NewsletterId }),
  z.object({ by: z.literal('invite'), key: z.string().regex(INVITE_CODE) }),
]);
export type ChannelRef = z.infer<typeof ChannelRef>;

const ChannelIdOrInvite = z
  .string()
  .max(256)
  .refine((value) => channelRef(value) !== null, {
    message: 'must be a channel id ("123123123@newsletter"), an invite code, or an invite link "https://www.whatsapp.com/channel/<code>"',
  })
  .meta({ description: 'Channel id (123@newsletter), invite code, or invite link https://www.whatsapp.com/channel/<code>' });

export const ChannelPathParams = z.object({ session: SessionName, id: NewsletterId });
export const ChannelLookupParams = z.object({ session: SessionName, id: ChannelIdOrInvite });

export const ChannelRole = z.enum(['OWNER', 'ADMIN', 'SUBSCRIBER', 'GUEST']).meta({ id: 'ChannelRole' });
export type ChannelRole = z.infer<typeof ChannelRole>;

export const ChannelListQuery = z.object({
  role: z
    .enum(['OWNER', 'ADMIN', 'SUBSCRIBER'])
    .optional()
    .meta({ description: 'Only the channels where the account has this role; all it knows when left out' }),
});
export type ChannelListQuery = z.infer<typeof ChannelListQuery>;

const channelFields = {
  id: NewsletterId,
  name: z.string().meta({ examples: ['Channel Name'] }),
  invite: z.string().meta({ description: 'Invite link', examples: ['https://www.whatsapp.com/channel/111111111111111111111111'] }),
  preview: z.string().optional().meta({ description: "Where a small preview of the channel's picture can be downloaded; absent without a picture" }),
  picture: z.string().optional().meta({ description: "Where the channel's picture can be downloaded; absent without a picture" }),
  description: z.string().optional(),
  verified: z.boolean(),
  subscribersCount: z.number().int().min(0),
};

/** What a channel's public profile shows anyone: search results. */
export const ChannelPublicInfo = z.object(channelFields).meta({ id: 'ChannelPublicInfo' });
export type ChannelPublicInfo = z.infer<typeof ChannelPublicInfo>;

/** A channel as the account sees it: with its own role there. */
export const Channel = z.object({ ...channelFields, role: ChannelRole }).meta({ id: 'Channel' });
export type Channel = z.infer<typeof Channel>;

export const CreateChannelRequest = z
  .object({
    name: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .meta({ examples: ['Channel Name'] }),
    description: z
      .string()
      .max(2048)
      .optional()
      .meta({ examples: ['Channel Description'] }),
    picture: FileInput.refine((file) => file.mimetype.toLowerCase().startsWith('image/'), {
      path: ['mimetype'],
      message: 'must be an image type, e.g. "image/jpeg"',
    })
      .optional()
      .meta({ description: 'An image, by `url` or base64 `data`' }),
  })
  .meta({ id: 'CreateChannelRequest' });
export type CreateChannelRequest = z.infer<typeof CreateChannelRequest>;

export const ChannelPreviewQuery = z.object({
  downloadMedia: QueryBoolean.default(false).meta({ description: 'Keep the posts’ files so that `media.url` downloads them (default false)' }),
  limit: z.coerce.number().int().min(1).max(100).default(10).meta({ description: 'How many of the latest posts, 1 to 100 (default 10)' }),
});

/** One post of a channel, with its reactions (emoji → count) and views. */
export const ChannelMessage = z
  .object({
    reactions: z.record(z.string(), z.number().int().min(0)),
    message: MessageRecord,
    viewCount: z.number().int().min(0),
  })
  .meta({ id: 'ChannelMessage' });
export type ChannelMessage = z.infer<typeof ChannelMessage>;

/** The lists the directory search is filtered by (`GET .../channels/search/views` and the others). */
export const ChannelView = z.object({ value: z.string(), name: z.string() }).meta({ id: 'ChannelView' });
export const ChannelCountry = z.object({ code: z.string(), name: z.string() }).meta({ id: 'ChannelCountry' });
export const ChannelCategory = z.object({ value: z.string(), name: z.string() }).meta({ id: 'ChannelCategory' });

export const CHANNEL_VIEWS = [
  { value: 'RECOMMENDED', name: 'Recommended' },
  { value: 'TRENDING', name: 'Trending' },
  { value: 'POPULAR', name: 'Popular' },
  { value: 'NEW', name: 'New' },
] as const;

export const CHANNEL_CATEGORIES = [
  { value: 'BUSINESS', name: 'Business' },
  { value: 'ENTERTAINMENT', name: 'Entertainment' },
  { value: 'LIFESTYLE', name: 'Lifestyle' },
  { value: 'NEWS', name: 'News' },
  { value: 'ORGANIZATIONS', name: 'Organizations' },
  { value: 'PEOPLE', name: 'People' },
  { value: 'SPORTS', name: 'Sports' },
] as const;

/** The countries the directory can be searched in: ISO 3166-1 alpha-2 codes. */
export const CHANNEL_COUNTRY_CODES = [
  'AE', 'AR', 'AT', 'AU', 'BE', 'BD', 'BR', 'CA', 'CH', 'CL', 'CO', 'DE', 'DK', 'EG', 'ES', 'FI', 'FR', 'GB', 'GH', 'GR',
  'ID', 'IE', 'IL', 'IN', 'IT', 'JP', 'KE', 'KR', 'MA', 'MX', 'MY', 'NG', 'NL', 'NO', 'NZ', 'PE', 'PH', 'PK', 'PL', 'PT',
  'RO', 'SA', 'SE', 'SG', 'TH', 'TR', 'UA', 'US', 'VE', 'VN', 'ZA',
] as const; // prettier-ignore

const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });
export function channelCountries(): { code: string; name: string }[] {
  return CHANNEL_COUNTRY_CODES.map((code) => ({ code, name: regionNames.of(code) ?? code }));
}

const listed = <T extends string>(values: readonly T[], what: string) =>
  z.string().refine((value) => (values as readonly string[]).includes(value), { message: `must be one of the ${what}: ${values.join(', ')}` });

const searchFields = {
  categories: z
    .array(
      listed(
        CHANNEL_CATEGORIES.map((category) => category.value),
        'categories of GET .../channels/search/categories',
      ),
    )
    .max(CHANNEL_CATEGORIES.length)
    .default([])
    .meta({ description: 'Only channels of these categories; all when empty' }),
  limit: z.number().int().min(1).max(100).default(50),
  startCursor: z
    .string()
    .max(256)
    .default('')
    .meta({ description: 'Where the page starts: `page.endCursor` of the page before; empty for the first' }),
};

export const ChannelSearchByView = z
  .object({
    view: listed(
      CHANNEL_VIEWS.map((view) => view.value),
      'views of GET .../channels/search/views',
    ).default('RECOMMENDED'),
    countries: z
      .array(listed(CHANNEL_COUNTRY_CODES, 'country codes of GET .../channels/search/countries'))
      .max(CHANNEL_COUNTRY_CODES.length)
      .default(['US']),
    ...searchFields,
  })
  .meta({ id: 'ChannelSearchByView' });
export type ChannelSearchByView = z.infer<typeof ChannelSearchByView>;

export const ChannelSearchByText = z.object({ text: z.string().trim().min(1).max(256), ...searchFields }).meta({ id: 'ChannelSearchByText' });
export type ChannelSearchByText = z.infer<typeof ChannelSearchByText>;

/** The `channels.search` command: one op for both searches, `by` naming which. */
export const ChannelSearchArgs = z.discriminatedUnion('by', [
  ChannelSearchByView.extend({ by: z.literal('view') }),
  ChannelSearchByText.extend({ by: z.literal('text') }),
]);
export type ChannelSearchArgs = z.infer<typeof ChannelSearchArgs>;

export const ChannelListResult = z
  .object({
    page: z
      .object({
        startCursor: z.string().nullable(),
        endCursor: z.string().nullable(),
        hasNextPage: z.boolean(),
        hasPreviousPage: z.boolean(),
      })
      .meta({ id: 'ChannelPagination' }),
    channels: z.array(ChannelPublicInfo),
  })
  .meta({ id: 'ChannelListResult' });
export type ChannelListResult = z.infer<typeof ChannelListResult>;
