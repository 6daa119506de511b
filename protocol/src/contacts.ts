import { z } from 'zod';
import { DEFAULT_SESSION, SessionName } from './ids.js';
import { QueryBoolean } from './session.js';

/**
 * A person as the contact routes name one (issue 16, Contacts): `<number>@c.us`, `<id>@lid`, or
 * the number alone (digits, with an optional `+`), which becomes `<number>@c.us` as clients of
 * this interface send it.
 */
export const ContactRef = z
  .string()
  .trim()
  .regex(/^(\+?\d{1,20}(@c\.us|@s\.whatsapp\.net)?|\d{1,24}@lid)$/, {
    message: 'must be "<number>@c.us", "<id>@lid" or a phone number in international format (digits)',
  })
  .transform((id) => (id.endsWith('@lid') ? id : `${id.replace(/^\+/, '').split('@')[0]}@c.us`))
  .meta({ description: 'Contact id: `<number>@c.us`, `<id>@lid`, or the number alone', examples: ['11111111111@c.us'] });

/** The query of `GET /api/contacts`, `/contacts/about` and `/contacts/profile-picture`. */
export const ContactQuery = z.object({ contactId: ContactRef, session: SessionName.default(DEFAULT_SESSION) });
export type ContactQuery = z.infer<typeof ContactQuery>;

export const ContactPictureQuery = ContactQuery.extend({
  refresh: QueryBoolean.default(false).meta({
    description: 'Ask the messaging service again rather than answer from what the engine keeps (it may rate-limit such asks)',
  }),
});

/** `POST /api/contacts/block` and `/unblock`. */
export const ContactRequest = z.object({ contactId: ContactRef, session: SessionName.default(DEFAULT_SESSION) }).meta({ id: 'ContactRequest' });
export type ContactRequest = z.infer<typeof ContactRequest>;

export const ContactPathParams = z.object({ session: SessionName, id: ContactRef });
export const ContactChatPathParams = z.object({ session: SessionName, chatId: ContactRef });

/** `PUT /api/{session}/contacts/{chatId}`: the name the account keeps for the contact in its address book. */
export const ContactUpdateBody = z
  .object({
    firstName: z
      .string()
      .trim()
      .min(1)
      .max(128)
      .meta({ examples: ['John'] }),
    lastName: z
      .string()
      .trim()
      .max(128)
      .meta({ description: 'May be empty', examples: ['Doe'] }),
  })
  .meta({ id: 'ContactUpdateBody' });
export type ContactUpdateBody = z.infer<typeof ContactUpdateBody>;

/** The largest page of `GET /api/contacts/all`; `limit=0` (the peer's n8n node's default) asks for it. */
export const CONTACTS_MAX_LIMIT = 1000;

export const ContactsAllQuery = z.object({
  session: SessionName.default(DEFAULT_SESSION),
  sortBy: z.enum(['id', 'name']).optional().meta({ description: 'Sort by field' }),
  sortOrder: z.enum(['desc', 'asc']).optional().meta({ description: 'desc: Z to A; asc (default): A to Z' }),
  limit: z.coerce
    .number()
    .int()
    .min(0)
    .max(CONTACTS_MAX_LIMIT)
    .default(0)
    .transform((limit) => (limit === 0 ? CONTACTS_MAX_LIMIT : limit))
    .meta({ description: `How many contacts: at most ${CONTACTS_MAX_LIMIT}; 0 or none sets no limit of its own (${CONTACTS_MAX_LIMIT})` }),
  offset: z.coerce.number().int().min(0).default(0).meta({ description: 'How many contacts to skip: default 0' }),
});
export type ContactsAllQuery = z.infer<typeof ContactsAllQuery>;

/** A contact as the engine knows it: the fields clients of this interface read (its WEBJS shape). */
export const Contact = z
  .object({
    id: z.string().meta({ description: '`<number>@c.us`, or `<id>@lid` when no phone number is known', examples: ['11111111111@c.us'] }),
    number: z
      .string()
      .nullable()
      .meta({ description: 'The phone number (digits), when known', examples: ['11111111111'] }),
    lid: z
      .string()
      .nullable()
      .meta({ description: 'The linked id (`<id>@lid`), when known', examples: ['123123@lid'] }),
    name: z.string().nullable().meta({ description: 'The name the account keeps for it in its address book' }),
    pushname: z.string().nullable().meta({ description: 'The name the contact set for itself' }),
    shortName: z.string().nullable().meta({ description: 'The first name the account keeps for it' }),
    isMe: z.boolean(),
    isUser: z.boolean(),
    isGroup: z.boolean(),
    isWAContact: z.boolean().meta({ description: 'Whether the number is registered with the messaging service' }),
    isMyContact: z.boolean().meta({ description: 'Whether it is in the account’s address book' }),
    isBlocked: z.boolean(),
  })
  .meta({ id: 'Contact' });
export type Contact = z.infer<typeof Contact>;

export const ContactAbout = z
  .object({ about: z.string().nullable().meta({ description: "The contact's About text; null when hidden or not set" }) })
  .meta({ id: 'ContactAbout' });
export type ContactAbout = z.infer<typeof ContactAbout>;

export const ContactProfilePicture = z
  .object({ profilePictureURL: z.string().nullable().meta({ description: 'Where the picture can be downloaded; null when hidden or not set' }) })
  .meta({ id: 'ContactProfilePicture' });
export type ContactProfilePicture = z.infer<typeof ContactProfilePicture>;

/** Sorts and pages `GET /api/contacts/all` the same way whichever engine answered. */
export function pageContacts(contacts: readonly Contact[], query: Pick<ContactsAllQuery, 'sortBy' | 'sortOrder' | 'limit' | 'offset'>): Contact[] {
  const key = (contact: Contact) => (query.sortBy === 'name' ? (contact.name ?? contact.pushname ?? '') : contact.id);
  const sorted = [...contacts].sort((a, b) => key(a).localeCompare(key(b)) || a.id.localeCompare(b.id));
  if (query.sortOrder === 'desc') sorted.reverse();
  return sorted.slice(query.offset, query.offset + query.limit);
}
