import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload } from 'jose';
import { ApiError } from '../http/errors.js';
import type { Principal } from './principal.js';

/** OAuth 2.0 resource-server settings (SWITCHBOARD_OAUTH_*); OAuth is off without them. */
export interface OAuthSettings {
  readonly issuer: string;
  readonly audience: string;
  readonly jwksUrl: string;
  /** Oldest token accepted, by its `iat`; DEFAULT_MAX_TOKEN_AGE_SECONDS when absent. */
  readonly maxTokenAgeSeconds?: number;
}

/**
 * A day: longer than the access tokens of common issuers live (minutes to a few hours), so none
 * is refused early, while a token an issuer made to last for years is not good for years here.
 */
export const DEFAULT_MAX_TOKEN_AGE_SECONDS = 24 * 60 * 60;

/**
 * Signatures made with a private key only: an HMAC key would have to be in the public JWKS to be
 * checked, so anyone could sign with it; `none` is no signature.
 */
const ASYMMETRIC_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

/** Clocks of the issuer and this server may differ a little: `iat` just ahead of ours is not refused. */
const CLOCK_TOLERANCE_SECONDS = 30;

/** Failures that say the token is bad, as opposed to the signing keys being out of reach. */
const TOKEN_FAULTS = new Set<string>([
  errors.JWTClaimValidationFailed.code,
  errors.JWTExpired.code,
  errors.JWTInvalid.code,
  errors.JWSInvalid.code,
  errors.JWSSignatureVerificationFailed.code,
  errors.JWKSNoMatchingKey.code,
  errors.JWKSMultipleMatchingKeys.code,
  errors.JOSEAlgNotAllowed.code,
  errors.JOSENotSupported.code,
]);

/**
 * Checks `Authorization: Bearer <JWT>` access tokens of an external authorization server: the
 * signature against its JWKS (fetched and cached by jose, refetched for an unknown key id) with
 * an asymmetric algorithm that a key of the JWKS is for, the issuer, the audience, and the
 * lifetime: `exp` and `iat` are required, and a token older than the maximum age is refused even
 * when its `exp` is later (a token made to last long is not trusted that long). The scopes come from `scope` (space-separated, RFC 8693)
 * or `scp` (a list, as some servers send it).
 */
export class OAuthVerifier {
  private readonly jwks: ReturnType<typeof createRemoteJWKSet>;

  constructor(private readonly settings: OAuthSettings) {
    this.jwks = createRemoteJWKSet(new URL(settings.jwksUrl));
  }

  async verify(token: string): Promise<Principal> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.jwks, {
        issuer: this.settings.issuer,
        audience: this.settings.audience,
        algorithms: ASYMMETRIC_ALGORITHMS,
        requiredClaims: ['exp', 'iat'],
        maxTokenAge: this.settings.maxTokenAgeSeconds ?? DEFAULT_MAX_TOKEN_AGE_SECONDS,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
      }));
    } catch (error) {
      const code = error instanceof errors.JOSEError ? error.code : undefined;
      if (code !== undefined && TOKEN_FAULTS.has(code)) throw new ApiError(401, `invalid bearer token: ${(error as Error).message}`);
      throw new ApiError(503, `cannot check the bearer token: the signing keys at ${this.settings.jwksUrl} are out of reach`);
    }
    return Object.freeze({ kind: 'oauth', subject: payload.sub ?? null, scopes: Object.freeze(scopesOf(payload)) });
  }
}

function scopesOf(payload: JWTPayload): string[] {
  const scopes: string[] = [];
  if (typeof payload.scope === 'string') scopes.push(...payload.scope.split(' ').filter(Boolean));
  if (Array.isArray(payload.scp)) scopes.push(...payload.scp.filter((s): s is string => typeof s === 'string'));
  return scopes;
}
