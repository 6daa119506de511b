import { randomBytes } from 'node:crypto';
import { pooledRandomBytes } from '../../random-pool.js';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A QR value shaped like a messaging web client's: `2@<ref>,<noise key>,<identity key>,<adv secret>`. */
export function sandboxQrValue(): string {
  const b64 = (n: number) => randomBytes(n).toString('base64');
  return `2@${b64(60)},${b64(32)},${b64(32)},${b64(32)}`;
}

/** An 8-character pairing code as a phone shows it: `ABCD-EFGH`. */
export function pairingCode(): string {
  const chars = Array.from(randomBytes(8), (byte) => CROCKFORD[byte % 32]).join('');
  return `${chars.slice(0, 4)}-${chars.slice(4)}`;
}

/** A message id in the style of the messaging service's own (upper-case hex). */
export function sandboxMessageId(): string {
  return `SB${pooledRandomBytes(9).toString('hex').toUpperCase()}`;
}
