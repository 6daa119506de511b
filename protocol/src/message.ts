import { z } from 'zod';

/** Spec 2.6: acknowledgement names and their numbers, ordered. */
export const ACKS = { ERROR: -1, PENDING: 0, SERVER: 1, DEVICE: 2, READ: 3, PLAYED: 4 } as const;
export const AckName = z.enum(['ERROR', 'PENDING', 'SERVER', 'DEVICE', 'READ', 'PLAYED']).meta({ id: 'AckName' });
export type AckName = z.infer<typeof AckName>;
export const Ack = z.literal([-1, 0, 1, 2, 3, 4]).meta({ id: 'Ack' });
export type Ack = (typeof ACKS)[AckName];

export function ackName(ack: number): AckName {
  const found = (Object.keys(ACKS) as AckName[]).find((name) => ACKS[name] === ack);
  if (!found) throw new RangeError(`unknown ack ${ack}`);
  return found;
}

export const MessageSource = z.enum(['app', 'api']);

export const Media = z
  .object({
    url: z.string().meta({ description: 'Download address' }),
    mimetype: z.string().optional(),
    filename: z.string().nullable().optional(),
  })
  .meta({ id: 'WAMedia' });
export type Media = z.infer<typeof Media>;

/** The message a message answers, as clients of this interface read it. */
export const ReplyToMessage = z
  .object({
    id: z.string().meta({ description: 'Id of the quoted message, without chat id' }),
    participant: z.string().optional(),
    body: z.string().optional(),
    hasMedia: z.boolean(),
    _data: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'ReplyToMessage' });
export type ReplyToMessage = z.infer<typeof ReplyToMessage>;

/** Where a location message points; coordinates are strings, as clients of this interface read them. */
export const MessageLocation = z
  .object({
    latitude: z.string(),
    longitude: z.string(),
    live: z.boolean(),
    name: z.string().optional(),
    address: z.string().optional(),
    url: z.string().optional(),
    description: z.string().optional(),
  })
  .meta({ id: 'WALocation' });
export type MessageLocation = z.infer<typeof MessageLocation>;

/**
 * Spec 2.5. `id` is `{fromMe}_{chatId}_{messageId}[_{participant}]`. `ackName` and `participant`
 * are not in the spec's table but every client of this interface reads them, so they are sent.
 */
export const MessageRecord = z
  .object({
    id: z.string().meta({ description: '{fromMe}_{chatId}_{messageId}[_{participant}]' }),
    timestamp: z.number().int().meta({ description: 'Unix seconds, whole' }),
    from: z.string(),
    fromMe: z.boolean(),
    source: MessageSource,
    to: z.string(),
    participant: z.string().nullable(),
    body: z.string(),
    hasMedia: z.boolean(),
    media: Media.nullable(),
    mediaUrl: z
      .string()
      .optional()
      .meta({ deprecated: true, description: 'Deprecated: read `media.url`. The same address, present when `media` is' }),
    ack: Ack,
    ackName: AckName,
    vCards: z.array(z.string()),
    location: MessageLocation.optional().meta({ description: 'Location messages only' }),
    replyTo: ReplyToMessage.nullable().optional(),
    _data: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'WAMessage' });
export type MessageRecord = z.infer<typeof MessageRecord>;

/**
 * Whole Unix seconds, as message records carry them: typed clients of this interface parse the
 * timestamp as an integer and fail on a fraction (issue 16).
 */
export function wholeSeconds(ms: number = Date.now()): number {
  return Math.floor(ms / 1000);
}

/**
 * A message record with the deprecated `mediaUrl` beside `media.url`, which older clients of
 * this interface read: set from `media`, gone when `media` is null. Anything else is returned
 * as it is. Applied where records leave an engine host (events, command results) and history.
 */
export function withMediaUrl<T>(value: T): T {
  if (value === null || typeof value !== 'object' || !('hasMedia' in value) || !('media' in value)) return value;
  const media = value.media as Media | null;
  if (media) return media.url === (value as { mediaUrl?: unknown }).mediaUrl ? value : { ...value, mediaUrl: media.url };
  if (!('mediaUrl' in value)) return value;
  const { mediaUrl: _stale, ...rest } = value;
  return rest as T;
}

/** Builds the spec 2.5 message id. */
export function messageId(fromMe: boolean, chatId: string, id: string, participant?: string | null): string {
  return `${fromMe}_${chatId}_${id}${participant ? `_${participant}` : ''}`;
}

export interface MessageKey {
  readonly fromMe: boolean;
  readonly chatId: string;
  /** The id without chat id (what `editedMessageId` and `revokedMessageId` carry). */
  readonly id: string;
  readonly participant: string | null;
}

const MESSAGE_ID = /^(true|false)_([^_]+)_([^_]+)(?:_(.+))?$/;

/** Reads a spec 2.5 message id; null when `id` does not have that form. */
export function parseMessageId(id: string): MessageKey | null {
  const match = MESSAGE_ID.exec(id);
  if (!match) return null;
  return { fromMe: match[1] === 'true', chatId: match[2]!, id: match[3]!, participant: match[4] ?? null };
}
