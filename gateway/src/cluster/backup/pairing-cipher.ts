import { createCipheriv, createDecipheriv, randomBytes, scrypt } from 'node:crypto';
import { promisify } from 'node:util';
import type { EncryptedPairings } from '@switchboard/protocol';

const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, keylen: number, options: object) => Promise<Buffer>;

/**
 * scrypt's cost: 2^15 with r = 8 takes 32 MiB and a good part of a second, once per backup or
 * restore. What was used is written beside the ciphertext, so raising it later breaks no archive.
 */
const COST = { N: 2 ** 15, r: 8, p: 1 } as const;

/** A passphrase that does not open the pairings, or a ciphertext that was changed. */
export class PairingsUnreadable extends Error {}

async function keyOf(passphrase: string, salt: Buffer, cost: { N: number; r: number; p: number }): Promise<Buffer> {
  // Node's default ceiling (32 MiB) is just below what N = 2^15, r = 8 needs with its overhead.
  return scryptAsync(passphrase, salt, 32, { ...cost, maxmem: 256 * cost.N * cost.r + 1024 * 1024 });
}

/**
 * Pairings are the accounts' credentials: whoever reads them can be the account. In the archive
 * they are AES-256-GCM under a key derived from the user's passphrase (scrypt), so the file may
 * sit in a bucket or a PVC without being as good as a logged-in phone. GCM's tag also makes a
 * changed ciphertext fail to open rather than restore garbage.
 */
export async function encryptPairings(plaintext: Buffer, passphrase: string): Promise<EncryptedPairings> {
  const salt = randomBytes(16);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', await keyOf(passphrase, salt, COST), iv);
  const data = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return {
    cipher: 'aes-256-gcm',
    kdf: 'scrypt',
    ...COST,
    salt: salt.toString('base64'),
    iv: iv.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    data: data.toString('base64'),
  };
}

export async function decryptPairings(sealed: EncryptedPairings, passphrase: string): Promise<Buffer> {
  const iv = Buffer.from(sealed.iv, 'base64');
  const tag = Buffer.from(sealed.tag, 'base64');
  if (iv.length !== 12 || tag.length !== 16) throw new PairingsUnreadable('pairings.iv must be 12 bytes and pairings.tag 16 bytes');
  const key = await keyOf(passphrase, Buffer.from(sealed.salt, 'base64'), sealed);
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]);
  } catch {
    throw new PairingsUnreadable('the passphrase does not open the archive’s pairings (or the archive was changed)');
  }
}
