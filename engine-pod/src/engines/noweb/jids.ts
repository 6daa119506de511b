import { jidDecode } from '@whiskeysockets/baileys';

/** Chat addressing of the interface (spec part 1) from the library's: `@s.whatsapp.net` is `@c.us`. */
export function toContactId(jid: string): string {
  const decoded = jidDecode(jid);
  if (!decoded?.user) return jid;
  // eslint-disable-next-line @typescript-eslint/switch-exhaustiveness-check -- the library's list of servers grows with the service: every other server keeps its own suffix
  switch (decoded.server) {
    case 's.whatsapp.net':
    case 'c.us':
      return `${decoded.user}@c.us`;
    case 'lid':
      return `${decoded.user}@lid`;
    default:
      return `${decoded.user}@${decoded.server}`;
  }
}

/** The library's addressing from the interface's: `@c.us` is `@s.whatsapp.net`. */
export function toLibraryJid(chatId: string): string {
  return chatId.endsWith('@c.us') ? `${chatId.slice(0, -'@c.us'.length)}@s.whatsapp.net` : chatId;
}

export function isLid(jid: string | null | undefined): boolean {
  return !!jid?.endsWith('@lid');
}

function isPhoneJid(jid: string | null | undefined): boolean {
  return !!jid?.endsWith('@s.whatsapp.net');
}

export function isGroupJid(jid: string | null | undefined): boolean {
  return !!jid?.endsWith('@g.us');
}

/** The user part of a jid: the same person whatever device or server suffix. */
export function sameUser(a: string | null | undefined, b: string | null | undefined): boolean {
  const left = a ? jidDecode(a)?.user : undefined;
  return !!left && left === (b ? jidDecode(b)?.user : undefined);
}

/** `ABCD1234` as a phone shows pairing codes: `ABCD-1234`. */
export function formatPairingCode(code: string): string {
  return code.length === 8 ? `${code.slice(0, 4)}-${code.slice(4)}` : code;
}

/** The library's LID to phone mapping, as far as it knows one. */
export type PhoneForLid = (lid: string) => Promise<string | null>;

/**
 * The chat id of a jid: `<number>@c.us` whenever a phone number is known (the jid itself, its
 * alternative address on the stanza, or the library's LID mapping), else the `@lid` as it is.
 */
export async function resolveContactId(jid: string, alt: string | null | undefined, phoneForLid: PhoneForLid): Promise<string> {
  if (!isLid(jid)) return toContactId(jid);
  if (isPhoneJid(alt)) return toContactId(alt!);
  const phone = await phoneForLid(jid).catch(() => null);
  return toContactId(phone ?? jid);
}
