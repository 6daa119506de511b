import { z } from 'zod';

/**
 * Session names travel in URL paths, SQLite keys, NATS subject tokens and (in cluster mode)
 * Kubernetes object names, so they are limited to characters all of those accept.
 */
export const SessionName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$/, {
    message: 'must be 1-63 characters: letters, digits, "_" or "-", starting with a letter or digit',
  })
  // The pattern allows 63 characters; saying so lets a schema reader (the CRD) see the bound.
  .meta({ description: 'Session name (id)', examples: ['default'], maxLength: 63 });
export type SessionName = z.infer<typeof SessionName>;

export const DEFAULT_SESSION = 'default';

/** Chat addressing of spec part 1: `<number>@c.us`, `<id>@g.us`, `<id>@lid` (unanchored, for other patterns). */
export const CHAT_ID_FORMS = String.raw`\d{1,20}@c\.us|[0-9A-Za-z-]{1,64}@g\.us|\d{1,24}@lid`;

export const ChatId = z
  .string()
  .regex(new RegExp(`^(${CHAT_ID_FORMS})$`), {
    message: 'must be "<number>@c.us", "<id>@g.us" or "<id>@lid"',
  })
  .meta({ description: 'Chat id', examples: ['15551234567@c.us'] });
export type ChatId = z.infer<typeof ChatId>;

/** A direct contact id, `<number>@c.us`. */
export const ContactId = z
  .string()
  .regex(/^\d{1,20}@c\.us$/, { message: 'must be "<number>@c.us"' })
  .meta({ examples: ['15550000000@c.us'] });

/** Event ids: `evt_` followed by a lower-case ULID (26 Crockford base32 characters). */
export const EventId = z
  .string()
  .regex(/^evt_[0-9a-hjkmnp-tv-z]{26}$/, { message: 'must be "evt_" followed by a lower-case ULID' })
  .meta({ examples: ['evt_01jabcdefghjkmnpqrstvwxyz0'] });
export type EventId = z.infer<typeof EventId>;

/**
 * Turns a phone number or chat id as older clients send it (`GET /api/sendText?phone=`) into a
 * chat id: digits become `<digits>@c.us`, ids with a server part are kept.
 */
export function phoneToChatId(phone: string): string {
  const trimmed = phone.trim();
  if (trimmed.includes('@')) return trimmed;
  return `${trimmed.replace(/[^\d]/g, '')}@c.us`;
}
