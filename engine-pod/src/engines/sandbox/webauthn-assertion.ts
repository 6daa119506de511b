import { createHash, createPublicKey, type JsonWebKey, type KeyObject, verify } from 'node:crypto';
import type { FieldIssue, PasskeyAssertionRequest } from '@switchboard/protocol';

/** What the relying party expects of an assertion (WebAuthn Level 2, 7.2). */
export interface ExpectedAssertion {
  readonly challenge: string;
  readonly rpId: string;
  readonly origin: string;
  /** The one credential allowed, with its public key; absent, any credential is taken unchecked. */
  readonly credential: { readonly id: string; readonly publicKey: KeyObject } | null;
}

// authenticatorData: rpIdHash (32 bytes), flags (1), signCount (4), then optional extensions.
const AUTH_DATA_MIN = 37;
const FLAG_USER_PRESENT = 0x01;
const FLAG_USER_VERIFIED = 0x04;

/** The hash WebAuthn signs with for each key type; a key type not listed cannot be used. */
const EC_HASHES: Record<string, string> = { prime256v1: 'sha256', secp384r1: 'sha384', secp521r1: 'sha512' };

/**
 * A JWK as a verification key, or the reason it cannot be one: EC P-256/P-384/P-521 (ES256...),
 * Ed25519 (EdDSA) or RSA (RS256).
 */
export function assertionKey(jwk: JsonWebKey): KeyObject | string {
  let key: KeyObject;
  try {
    key = createPublicKey({ key: jwk, format: 'jwk' });
  } catch (error) {
    return `is not a usable public key: ${(error as Error).message}`;
  }
  return signatureHash(key) === undefined ? 'must be an EC P-256, P-384 or P-521, an Ed25519 or an RSA public key' : key;
}

function signatureHash(key: KeyObject): string | null | undefined {
  // eslint-disable-next-line @typescript-eslint/switch-exhaustiveness-check -- Node's key types (dsa, x25519, ...) beyond these three are all unusable here
  switch (key.asymmetricKeyType) {
    case 'ec':
      return EC_HASHES[key.asymmetricKeyDetails?.namedCurve ?? ''];
    case 'ed25519':
      return null;
    case 'rsa':
      return 'sha256';
    default:
      return undefined;
  }
}

/**
 * Checks an assertion as a relying party does: the credential, the client data (type, challenge,
 * origin), the authenticator data (RP id hash, user present and verified) and, when the public
 * key is known, the signature over authenticatorData || SHA-256(clientDataJSON). Returns one
 * issue per field that fails, none when the assertion holds.
 */
export function checkAssertion(assertion: PasskeyAssertionRequest, expected: ExpectedAssertion): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const issue = (path: string, reason: string) => issues.push({ path: `body.${path}`, reason });
  const { response } = assertion;

  if (!sameBytes(assertion.id, assertion.rawId)) issue('id', 'must be the credential id that rawId encodes');
  if (expected.credential && !sameBytes(assertion.rawId, expected.credential.id)) {
    issue('rawId', 'is not a credential in allowCredentials');
  }

  const clientDataJSON = Buffer.from(response.clientDataJSON, 'base64url');
  const clientData = parseClientData(clientDataJSON);
  if (typeof clientData === 'string') issue('response.clientDataJSON', clientData);
  else {
    if (clientData.type !== 'webauthn.get') issue('response.clientDataJSON', `type is ${JSON.stringify(clientData.type)}; must be "webauthn.get"`);
    if (typeof clientData.challenge !== 'string' || !sameBytes(clientData.challenge, expected.challenge)) {
      issue('response.clientDataJSON', 'challenge is not the pending challenge; get the challenge again and sign that');
    }
    if (clientData.origin !== expected.origin)
      issue('response.clientDataJSON', `origin is ${JSON.stringify(clientData.origin)}; must be ${expected.origin}`);
  }

  const authenticatorData = Buffer.from(response.authenticatorData, 'base64url');
  if (authenticatorData.length < AUTH_DATA_MIN) {
    issue('response.authenticatorData', `is ${authenticatorData.length} bytes; must be at least ${AUTH_DATA_MIN}`);
  } else {
    const rpIdHash = createHash('sha256').update(expected.rpId).digest();
    if (!authenticatorData.subarray(0, 32).equals(rpIdHash)) issue('response.authenticatorData', `rpIdHash is not SHA-256 of ${expected.rpId}`);
    const flags = authenticatorData[32]!;
    if (!(flags & FLAG_USER_PRESENT)) issue('response.authenticatorData', 'the user present flag is not set');
    if (!(flags & FLAG_USER_VERIFIED)) issue('response.authenticatorData', 'the user verified flag is not set; user verification is required');
  }

  if (expected.credential && issues.length === 0) {
    const key = expected.credential.publicKey;
    const signed = Buffer.concat([authenticatorData, createHash('sha256').update(clientDataJSON).digest()]);
    const signature = Buffer.from(response.signature, 'base64url');
    if (!verifies(key, signed, signature)) issue('response.signature', 'does not verify with the public key of the allowed credential');
  }
  return issues;
}

function verifies(key: KeyObject, data: Buffer, signature: Buffer): boolean {
  try {
    return verify(signatureHash(key) ?? null, data, key, signature);
  } catch {
    // A signature that is not even DER (for EC) is as wrong as one that does not verify.
    return false;
  }
}

function parseClientData(bytes: Buffer): { type?: unknown; challenge?: unknown; origin?: unknown } | string {
  try {
    const parsed: unknown = JSON.parse(bytes.toString('utf8'));
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed;
  } catch {
    // Reported below, like a JSON value that is not an object.
  }
  return 'is not base64url of a JSON object';
}

/** Base64url values compared with or without their padding, which clients add or leave out. */
function sameBytes(a: string, b: string): boolean {
  // The lookbehind starts the match at the first "=" of a run only: linear however long the run.
  return a.replace(/(?<!=)=+$/, '') === b.replace(/(?<!=)=+$/, '');
}
