import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CryptoKey, exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';

export interface TokenOptions {
  /** Space-separated, as the `scope` claim; omitted when undefined. */
  readonly scope?: string;
  readonly audience?: string;
  readonly issuer?: string;
  /** Seconds from now; negative for a token that has already expired; null for no `exp`. Default 300. */
  readonly expiresIn?: number | null;
  /** `iat`, in seconds from now (negative: in the past); null for no `iat`. Default -60. */
  readonly issuedAt?: number | null;
  /**
   * A forged token: `none` unsigned, `HS256` signed with the issuer's published public key as the
   * HMAC secret (the algorithm-confusion attack on servers that take the token's `alg`).
   */
  readonly forge?: 'none' | 'HS256';
  /** Sign with a key the JWKS does not publish. */
  readonly foreignKey?: boolean;
  readonly claims?: JWTPayload;
}

/**
 * A real OAuth 2.0 authorization server, as far as a resource server sees one: its signing keys
 * as a JWKS on a loopback HTTP port, and access tokens (JWT, RS256) signed with them.
 */
export class OAuthIssuer {
  static readonly AUDIENCE = 'switchboard-test';
  /** JWKS requests served, so a test can tell the keys were fetched (and cached). */
  jwksRequests = 0;

  private constructor(
    private readonly server: Server,
    private readonly privateKey: CryptoKey,
    private readonly foreignKey: CryptoKey,
    private readonly publicJwk: object,
  ) {}

  static async start(): Promise<OAuthIssuer> {
    const [own, foreign] = await Promise.all([generateKeyPair('RS256'), generateKeyPair('RS256')]);
    const jwk = { ...(await exportJWK(own.publicKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
    let issuer: OAuthIssuer | null = null;
    const server = createServer((request, response) => {
      if (request.url !== '/jwks.json') {
        response.writeHead(404).end();
        return;
      }
      if (issuer) issuer.jwksRequests++;
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    issuer = new OAuthIssuer(server, own.privateKey, foreign.privateKey, jwk);
    return issuer;
  }

  /** The `iss` of its tokens: its own base URL, as real issuers use. */
  get issuer(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  get jwksUrl(): string {
    return `${this.issuer}/jwks.json`;
  }

  /** The gateway settings that make it trust this issuer. */
  get settings(): { issuer: string; audience: string; jwksUrl: string } {
    return { issuer: this.issuer, audience: OAuthIssuer.AUDIENCE, jwksUrl: this.jwksUrl };
  }

  async token(options: TokenOptions = {}): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const claims: JWTPayload = { ...options.claims, ...(options.scope === undefined ? {} : { scope: options.scope }) };
    const issuedAt = options.issuedAt === undefined ? -60 : options.issuedAt;
    const expiresIn = options.expiresIn === undefined ? 300 : options.expiresIn;
    const jwt = new SignJWT(claims)
      // An unsigned token takes the claims of one signed with a throwaway secret.
      .setProtectedHeader({ alg: options.forge === undefined ? 'RS256' : 'HS256', kid: 'test-key' })
      .setIssuer(options.issuer ?? this.issuer)
      .setAudience(options.audience ?? OAuthIssuer.AUDIENCE)
      .setSubject('client-1');
    if (issuedAt !== null) jwt.setIssuedAt(now + issuedAt);
    if (expiresIn !== null) jwt.setExpirationTime(now + expiresIn);
    if (options.forge === 'none') {
      const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
      const [, payload] = (await jwt.sign(new TextEncoder().encode('unused-secret-of-32-bytes-or-more!'))).split('.');
      return `${part({ alg: 'none', kid: 'test-key' })}.${payload}.`;
    }
    if (options.forge === 'HS256') return jwt.sign(new TextEncoder().encode(JSON.stringify(this.publicJwk)));
    return jwt.sign(options.foreignKey ? this.foreignKey : this.privateKey);
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
