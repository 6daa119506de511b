import { ApiError } from '../http/errors.js';
import { keyMatches, storedDigest } from './api-key.js';

export type Principal = { readonly kind: 'admin' };

const ADMIN: Principal = Object.freeze({ kind: 'admin' });

/** Decides who is calling from the presented key. Never logs or echoes the key. */
export class ApiKeyAuthenticator {
  private readonly adminDigest: Buffer;

  constructor(adminHash: string) {
    this.adminDigest = storedDigest(adminHash);
  }

  /** Throws a 401 ApiError for a missing or wrong key. */
  authenticate(presented: string | string[] | undefined, where: string): Principal {
    if (presented === undefined || presented === '') throw new ApiError(401, `missing API key: send it in ${where}`);
    if (typeof presented !== 'string' || !keyMatches(presented, this.adminDigest)) {
      throw new ApiError(401, 'invalid API key');
    }
    return ADMIN;
  }
}
