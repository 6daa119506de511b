import type { ContactCard } from '@switchboard/protocol';

/** RFC 6350 3.4: backslash, comma, semicolon and line breaks are escaped in text values. */
function escape(value: string): string {
  return value.replace(/[\\,;]/g, (char) => `\\${char}`).replace(/\r?\n/g, '\\n');
}

/**
 * The vCard of a contact card: the one given, or a vCard 3.0 built from its fields the way the
 * messaging service's own apps write them (`waid` is what makes the number tappable).
 */
export function vcardOf(contact: ContactCard): string {
  if (contact.vcard != null) return contact.vcard;
  const phone = contact.phoneNumber!;
  const waid = contact.whatsappId ?? phone.replace(/\D/g, '');
  return [
    'BEGIN:VCARD',
    'VERSION:3.0',
    `FN:${escape(contact.fullName!)}`,
    ...(contact.organization ? [`ORG:${escape(contact.organization)};`] : []),
    `TEL;type=CELL;type=VOICE;waid=${waid}:${phone}`,
    'END:VCARD',
  ].join('\n');
}
