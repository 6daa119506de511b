import { hash, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../http/errors.js';
import { storedDigest } from './api-key.js';
import type { KeyRing } from './key-ring.js';
import type { OAuthVerifier } from './oauth.js';
import { CONFIGURED_ADMIN, type Incarnations, type Principal } from './principal.js';

export type { Principal } from './principal.js';

/**
 * Decides who is calling from the presented key or token. Never logs or echoes either.
 *
 * The key check runs on every request, so it allocates one thing (the presented key's digest):
 * the configured admin key is compared first, then the stored keys are looked up by digest in
 * the KeyRing and the found digest compared in constant time; principals are made once per key.
 */
export class ApiKeyAuthenticator {
  private readonly adminDigest: Buffer;

  constructor(
    adminHash: string,
    private readonly ring: KeyRing,
    private readonly oauth: OAuthVerifier | null = null,
    /** The current incarnation of each session, which keys limited to one are checked against. */
    readonly incarnations: Incarnations = () => undefined,
  ) {
    this.adminDigest = storedDigest(adminHash);
  }

  get acceptsBearerTokens(): boolean {
    return this.oauth !== null;
  }

  /** Throws a 401 ApiError for a missing, wrong or inactive key. */
  authenticate(presented: string | string[] | undefined, where: string): Principal {
    if (presented === undefined || presented === '') throw new ApiError(401, `missing API key: send it in ${where}`);
    if (typeof presented !== 'string') throw new ApiError(401, `invalid API key: send one key in ${where}`);
    const digest = hash('sha512', presented, 'buffer');
    if (timingSafeEqual(digest, this.adminDigest)) return CONFIGURED_ADMIN;
    const found = this.ring.find(digest);
    if (found === undefined) throw new ApiError(401, 'invalid API key');
    if (!found.key.isActive) throw new ApiError(401, `API key ${found.key.id} is inactive`);
    return found.principal;
  }

  /**
   * Calls `changed` each time the stored key behind `principal` changes, with its principal now,
   * or with why it no longer lets anyone in (deleted, inactive). The configured admin key and
   * OAuth tokens are not stored keys: they never change. Returns the unsubscribe.
   */
  watch(principal: Principal, changed: (now: Principal | string) => void): () => void {
    if (principal === CONFIGURED_ADMIN || principal.kind === 'oauth') return () => {};
    const { id } = principal;
    return this.ring.onChange((changedId) => {
      if (changedId !== id) return;
      const key = this.ring.get(id);
      if (key === undefined) changed(`API key ${id} was deleted`);
      else if (!key.isActive) changed(`API key ${id} is inactive`);
      else changed(this.ring.principal(id)!);
    });
  }

  /** Throws a 401 ApiError for a bad token, 503 when the issuer's signing keys cannot be fetched. */
  async bearer(token: string): Promise<Principal> {
    if (!this.oauth) {
      throw new ApiError(401, 'OAuth 2.0 bearer tokens are not accepted by this server: send an API key in the X-Api-Key header');
    }
    return this.oauth.verify(token);
  }
}
