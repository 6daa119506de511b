import { createHash, generateKeyPairSync, type JsonWebKey, type KeyObject, randomBytes, sign } from 'node:crypto';

/** The parts of WebAuthn request options an authenticator reads. */
export interface RequestOptions {
  readonly challenge: string;
  readonly rpId: string;
}

/** What a test may spoil in an assertion, to see the relying party refuse it. */
export interface AssertionOverrides {
  readonly type?: string;
  readonly challenge?: string;
  readonly origin?: string;
  readonly rpId?: string;
  /** authenticatorData flags; default user present and user verified (0x05). */
  readonly flags?: number;
  /** Sign with this key instead of the credential's. */
  readonly signWith?: KeyObject;
}

export type KeyKind = 'ES256' | 'EdDSA' | 'RS256';

/**
 * A software passkey: one credential whose assertions are made as a browser and a platform
 * authenticator make them (clientDataJSON, authenticatorData, and the signature over
 * authenticatorData || SHA-256(clientDataJSON)), in the JSON form of
 * `navigator.credentials.get().toJSON()`.
 */
export class SoftAuthenticator {
  readonly id = randomBytes(16).toString('base64url');
  readonly publicKey: JsonWebKey;
  private readonly privateKey: KeyObject;
  private signCount = 0;

  constructor(
    readonly kind: KeyKind = 'ES256',
    readonly origin = 'https://web.whatsapp.com',
  ) {
    const pair =
      kind === 'ES256'
        ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
        : kind === 'EdDSA'
          ? generateKeyPairSync('ed25519')
          : generateKeyPairSync('rsa', { modulusLength: 2048 });
    this.privateKey = pair.privateKey;
    this.publicKey = pair.publicKey.export({ format: 'jwk' });
  }

  /** What a SANDBOX `passkey` simulation registers. */
  get credential(): { id: string; publicKey: JsonWebKey } {
    return { id: this.id, publicKey: this.publicKey };
  }

  assert(options: RequestOptions, overrides: AssertionOverrides = {}) {
    const clientDataJSON = Buffer.from(
      JSON.stringify({
        type: overrides.type ?? 'webauthn.get',
        challenge: overrides.challenge ?? options.challenge,
        origin: overrides.origin ?? this.origin,
        crossOrigin: false,
      }),
    );
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(++this.signCount);
    const authenticatorData = Buffer.concat([
      createHash('sha256')
        .update(overrides.rpId ?? options.rpId)
        .digest(),
      Buffer.from([overrides.flags ?? 0x05]),
      counter,
    ]);
    const signed = Buffer.concat([authenticatorData, createHash('sha256').update(clientDataJSON).digest()]);
    const signature = sign(this.kind === 'EdDSA' ? null : 'sha256', signed, overrides.signWith ?? this.privateKey);
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key' as const,
      response: {
        clientDataJSON: clientDataJSON.toString('base64url'),
        authenticatorData: authenticatorData.toString('base64url'),
        signature: signature.toString('base64url'),
      },
    };
  }
}
