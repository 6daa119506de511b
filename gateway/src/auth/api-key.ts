import { hash, randomBytes } from 'node:crypto';

const PREFIX = 'sha512:';

/**
 * Keys are 256 random bits, so a fast hash is enough to make a leaked database useless; a slow
 * password hash would only cost latency on every request. Stored as `sha512:<hex>`.
 */
export function hashApiKey(key: string): string {
  return PREFIX + hash('sha512', key, 'hex');
}

/** `SWITCHBOARD_API_KEY` holds either the key itself or `sha512:<hex>` of it. */
export function configuredKeyHash(value: string): string {
  if (!value.startsWith(PREFIX)) return hashApiKey(value);
  const hex = value.slice(PREFIX.length).toLowerCase();
  if (!/^[0-9a-f]{128}$/.test(hex)) {
    throw new Error('SWITCHBOARD_API_KEY: after "sha512:" there must be 128 hexadecimal digits');
  }
  return PREFIX + hex;
}

/** The raw digest of a stored `sha512:<hex>` hash, decoded once so requests compare bytes. */
export function storedDigest(storedHash: string): Buffer {
  return Buffer.from(storedHash.slice(PREFIX.length), 'hex');
}

export function generateApiKey(): string {
  return `sb_${randomBytes(32).toString('base64url')}`;
}
