import { wholeSeconds } from '@switchboard/protocol';
import { randomBytes } from 'node:crypto';

/** A group member that simulations use when the body names none. */
export const DEFAULT_MEMBER = '15557770001@c.us';

/** A call id as the messaging service makes them: 32 upper-case hex digits. */
export function sandboxCallId(): string {
  return randomBytes(16).toString('hex').toUpperCase();
}

/** A group id of today's form, `120363<12 digits>@g.us`. */
export function sandboxGroupId(): string {
  const digits = Array.from(randomBytes(12), (byte) => byte % 10).join('');
  return `120363${digits}@g.us`;
}

/** A group invite link, `https://chat.whatsapp.com/<22 letters and digits>`. */
export function sandboxInviteLink(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return `https://chat.whatsapp.com/${Array.from(randomBytes(22), (byte) => alphabet[byte % alphabet.length]).join('')}`;
}

export const nowSeconds = (): number => wholeSeconds();
