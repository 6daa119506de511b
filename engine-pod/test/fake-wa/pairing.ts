import { randomBytes, randomInt } from 'node:crypto';
import {
  aesDecryptCTR,
  aesDecryptGCM,
  aesEncryptCTR,
  type BinaryNode,
  Curve,
  derivePairingCodeKey,
  hkdf,
  hmacSign,
  type KeyPair,
  proto,
  WA_ADV_ACCOUNT_SIG_PREFIX,
} from '@whiskeysockets/baileys';

/** What a phone reads from a companion's QR code. */
export interface ScannedQr {
  readonly ref: string;
  readonly noiseKey: Buffer;
  readonly identityKey: Buffer;
  readonly advSecret: Buffer;
}

/** `https://wa.me/settings/linked_devices#ref,noiseKey,identityKey,advSecret,platform` */
export function parseQr(qr: string): ScannedQr {
  const [ref, noise, identity, adv] = qr.slice(qr.indexOf('#') + 1).split(',');
  if (!ref || !noise || !identity || !adv) throw new Error(`not a companion QR code: ${qr}`);
  return {
    ref,
    noiseKey: Buffer.from(noise, 'base64'),
    identityKey: Buffer.from(identity, 'base64'),
    advSecret: Buffer.from(adv, 'base64'),
  };
}

/** The primary device's side of linking: its long-term account key signs each companion. */
export interface PrimaryDevice {
  readonly phone: string;
  readonly lid: string;
  readonly accountKey: KeyPair;
}

/**
 * `pair-success`: the companion's identity signed by the account key, wrapped in an HMAC keyed by
 * the companion's adv secret (from the QR code, or derived during code pairing).
 */
export function pairSuccess(primary: PrimaryDevice, device: number, companionIdentity: Uint8Array, advSecret: Uint8Array): BinaryNode {
  const deviceDetails = proto.ADVDeviceIdentity.encode({
    rawId: randomInt(1, 2 ** 31),
    timestamp: Math.floor(Date.now() / 1000),
    keyIndex: device,
  }).finish();
  const accountSignature = Curve.sign(
    Buffer.from(primary.accountKey.private),
    Buffer.concat([WA_ADV_ACCOUNT_SIG_PREFIX, deviceDetails, companionIdentity]),
  );
  const details = proto.ADVSignedDeviceIdentity.encode({
    details: deviceDetails,
    accountSignatureKey: primary.accountKey.public,
    accountSignature,
  }).finish();
  const identity = proto.ADVSignedDeviceIdentityHMAC.encode({
    details,
    hmac: hmacSign(details, advSecret),
  }).finish();
  return {
    tag: 'iq',
    attrs: { from: '@s.whatsapp.net', type: 'set', id: randomBytes(8).toString('hex') },
    content: [
      {
        tag: 'pair-success',
        attrs: {},
        content: [
          { tag: 'device-identity', attrs: {}, content: identity },
          { tag: 'platform', attrs: { name: 'smbi' } },
          {
            tag: 'device',
            attrs: { jid: `${primary.phone}:${device}@s.whatsapp.net`, lid: `${primary.lid}:${device}@lid` },
          },
        ],
      },
    ],
  };
}

/**
 * Pairing by code, the primary's half. The companion sent its ephemeral key wrapped with a key
 * derived from the code; the user types the code on the phone, which unwraps it and answers with
 * its own wrapped ephemeral key; the companion then sends its key bundle, from which both sides
 * derive the adv secret.
 */
export class CodePairing {
  private readonly ephemeral: KeyPair = Curve.generateKeyPair();
  readonly ref = randomBytes(16).toString('base64');
  private companionEphemeral: Buffer | null = null;

  constructor(
    private readonly primaryIdentity: KeyPair,
    private readonly wrappedCompanionEphemeral: Buffer,
  ) {}

  /** The code typed on the phone: returns the `link_code_companion_reg` notification. */
  async enter(code: string): Promise<BinaryNode> {
    const plainCode = code.replace(/-/g, '');
    const wrapped = this.wrappedCompanionEphemeral;
    const key = await derivePairingCodeKey(plainCode, wrapped.subarray(0, 32));
    this.companionEphemeral = aesDecryptCTR(wrapped.subarray(48, 80), key, wrapped.subarray(32, 48));
    const salt = randomBytes(32);
    const iv = randomBytes(16);
    const wrapKey = await derivePairingCodeKey(plainCode, salt);
    const wrappedPrimary = Buffer.concat([salt, iv, aesEncryptCTR(Buffer.from(this.ephemeral.public), wrapKey, iv)]);
    return {
      tag: 'notification',
      attrs: { from: '@s.whatsapp.net', type: 'link_code_companion_reg', id: randomBytes(8).toString('hex') },
      content: [
        {
          tag: 'link_code_companion_reg',
          attrs: {},
          content: [
            { tag: 'link_code_pairing_ref', attrs: {}, content: Buffer.from(this.ref) },
            { tag: 'primary_identity_pub', attrs: {}, content: this.primaryIdentity.public },
            { tag: 'link_code_pairing_wrapped_primary_ephemeral_pub', attrs: {}, content: wrappedPrimary },
          ],
        },
      ],
    };
  }

  /** The companion's `companion_finish` bundle: its identity key and the adv secret both sides now share. */
  finish(wrappedBundle: Uint8Array, companionIdentity: Uint8Array): { advSecret: Buffer } {
    if (!this.companionEphemeral) throw new Error('companion_finish before the code was entered');
    const bundle = Buffer.from(wrappedBundle);
    const companionShared = Curve.sharedKey(Buffer.from(this.ephemeral.private), this.companionEphemeral);
    const bundleKey = hkdf(companionShared, 32, {
      salt: bundle.subarray(0, 32),
      info: 'link_code_pairing_key_bundle_encryption_key',
    });
    const decrypted = aesDecryptGCM(bundle.subarray(44), Buffer.from(bundleKey), bundle.subarray(32, 44), Buffer.alloc(0));
    const random = decrypted.subarray(64, 96);
    const identityShared = Curve.sharedKey(Buffer.from(this.primaryIdentity.private), Buffer.from(companionIdentity));
    const advSecret = hkdf(Buffer.concat([companionShared, identityShared, random]), 32, { info: 'adv_secret' });
    return { advSecret: Buffer.from(advSecret) };
  }
}
