import { randomFillSync } from 'node:crypto';

const POOL_SIZE = 8192;
const pool = Buffer.alloc(POOL_SIZE);
let offset = POOL_SIZE;

/**
 * Cryptographic random bytes drawn from a pool filled in bulk. Ids are made for every event and
 * message; asking the OS for a few bytes each time (what `randomBytes(9)` and the ulid library
 * do) cost more than building the event itself.
 */
export function pooledRandomBytes(count: number): Buffer {
  if (count > POOL_SIZE) throw new RangeError(`at most ${POOL_SIZE} bytes at a time`);
  reserve(count);
  const bytes = Buffer.from(pool.subarray(offset, offset + count));
  offset += count;
  return bytes;
}

/** A uniform number in [0, 1) with 8 random bits, the form the ulid library's PRNG takes. */
export function pooledRandom(): number {
  reserve(1);
  return pool[offset++]! / 256;
}

function reserve(count: number): void {
  if (offset + count > POOL_SIZE) {
    randomFillSync(pool);
    offset = 0;
  }
}
