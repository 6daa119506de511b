import { aesDecryptGCM, aesEncryptGCM, Curve, type KeyPair, hkdf, NOISE_MODE, NOISE_WA_HEADER, proto, sha256 } from '@whiskeysockets/baileys';

/** What the client sends before its first frame: `WA`, 6, the dictionary version. */
const INTRO_HEADER_LENGTH = NOISE_WA_HEADER.length;

function iv(counter: number): Buffer {
  const out = Buffer.alloc(12);
  out.writeUInt32BE(counter, 8);
  return out;
}

/**
 * The server side of WhatsApp Web's Noise XX handshake (`Noise_XX_25519_AESGCM_SHA256`), the
 * mirror of Baileys' `makeNoiseHandler`: the same hash chaining and key mixing, from the
 * responder's end. After `finish` it encrypts and decrypts transport frames.
 */
export class NoiseResponder {
  private hash: Buffer;
  private salt: Buffer;
  private key: Buffer;
  private counter = 0;
  private readonly ephemeral: KeyPair = Curve.generateKeyPair();
  private transport: { enc: Buffer; dec: Buffer; read: number; write: number } | null = null;
  /** The client's long-term noise key, known after `finish`; it identifies a paired device. */
  clientStatic: Buffer | null = null;

  constructor(
    private readonly staticKey: KeyPair,
    private readonly certChain: Uint8Array,
  ) {
    const mode = Buffer.from(NOISE_MODE);
    this.hash = mode.length === 32 ? mode : sha256(mode);
    this.salt = this.hash;
    this.key = this.hash;
    this.authenticate(NOISE_WA_HEADER);
  }

  /** The client hello in, the server hello out. */
  serverHello(clientHello: Uint8Array): Uint8Array {
    const hello = proto.HandshakeMessage.decode(clientHello);
    const clientEphemeral = Buffer.from(hello.clientHello?.ephemeral ?? []);
    if (clientEphemeral.length !== 32) throw new Error('client hello without a 32-byte ephemeral key');
    this.authenticate(clientEphemeral);
    this.authenticate(this.ephemeral.public);
    this.mixIntoKey(Curve.sharedKey(this.ephemeral.private, clientEphemeral));
    const staticEnc = this.encrypt(this.staticKey.public);
    this.mixIntoKey(Curve.sharedKey(this.staticKey.private, clientEphemeral));
    const payloadEnc = this.encrypt(this.certChain);
    return proto.HandshakeMessage.encode({
      serverHello: { ephemeral: this.ephemeral.public, static: staticEnc, payload: payloadEnc },
    }).finish();
  }

  /** The client finish in: the client's static key and its `ClientPayload`. */
  finish(clientFinish: Uint8Array): proto.ClientPayload {
    const message = proto.HandshakeMessage.decode(clientFinish);
    const finish = message.clientFinish;
    if (!finish?.static || !finish.payload) throw new Error('client finish without static key or payload');
    const clientStatic = this.decrypt(finish.static);
    this.clientStatic = clientStatic;
    this.mixIntoKey(Curve.sharedKey(this.ephemeral.private, clientStatic));
    const payload = proto.ClientPayload.decode(this.decrypt(finish.payload));
    const okm = hkdf(new Uint8Array(0), 64, { salt: this.salt, info: '' });
    const write = Buffer.from(okm.subarray(0, 32));
    const read = Buffer.from(okm.subarray(32));
    // The client writes with the first half, so the server reads with it.
    this.transport = { enc: read, dec: write, read: 0, write: 0 };
    return payload;
  }

  encryptFrame(plaintext: Uint8Array): Buffer {
    const t = this.requireTransport();
    return aesEncryptGCM(plaintext, t.enc, iv(t.write++), Buffer.alloc(0));
  }

  decryptFrame(ciphertext: Uint8Array): Buffer {
    const t = this.requireTransport();
    return aesDecryptGCM(ciphertext, t.dec, iv(t.read++), Buffer.alloc(0));
  }

  private requireTransport() {
    if (!this.transport) throw new Error('noise handshake not finished');
    return this.transport;
  }

  private authenticate(data: Uint8Array): void {
    this.hash = sha256(Buffer.concat([this.hash, data]));
  }

  private encrypt(plaintext: Uint8Array): Buffer {
    const result = aesEncryptGCM(plaintext, this.key, iv(this.counter++), this.hash);
    this.authenticate(result);
    return result;
  }

  private decrypt(ciphertext: Uint8Array): Buffer {
    const result = aesDecryptGCM(ciphertext, this.key, iv(this.counter++), this.hash);
    this.authenticate(ciphertext);
    return result;
  }

  private mixIntoKey(data: Uint8Array): void {
    const okm = hkdf(Buffer.from(data), 64, { salt: this.salt, info: '' });
    this.salt = Buffer.from(okm.subarray(0, 32));
    this.key = Buffer.from(okm.subarray(32));
    this.counter = 0;
  }
}

/**
 * The server's certificate chain: an intermediate certificate (issuer serial 0) signed by a root
 * key of the fake's own, and the leaf, whose key is the server's static noise key, signed by the
 * intermediate's key. whatsmeow checks all of it against a root public key (WhatsApp's, or the
 * one `SWITCHBOARD_GOWS_CERT_ROOT_PUBKEY` gives: `FakeWaServer.certRootPublicKey`); Baileys
 * checks the shape and issuer serials (a wrong signature passes there: libsignal reports it by
 * returning false, which Baileys ignores).
 */
export function certChain(root: KeyPair, serverStatic: KeyPair): Uint8Array {
  const intermediate = Curve.generateKeyPair();
  const intermediateDetails = proto.CertChain.NoiseCertificate.Details.encode({
    serial: 1,
    issuerSerial: 0,
    key: intermediate.public,
    notBefore: 0,
    notAfter: 4_102_444_800,
  }).finish();
  const leafDetails = proto.CertChain.NoiseCertificate.Details.encode({
    serial: 2,
    issuerSerial: 1,
    key: serverStatic.public,
    notBefore: 0,
    notAfter: 4_102_444_800,
  }).finish();
  return proto.CertChain.encode({
    intermediate: { details: intermediateDetails, signature: Curve.sign(root.private, intermediateDetails) },
    leaf: { details: leafDetails, signature: Curve.sign(intermediate.private, leafDetails) },
  }).finish();
}

/** Splits the client's byte stream into frames: the intro header once, then 3-byte lengths. */
export class FrameReader {
  private buffered: Buffer = Buffer.alloc(0);
  private sawIntro = false;

  push(data: Buffer): Buffer[] {
    this.buffered = this.buffered.length === 0 ? data : Buffer.concat([this.buffered, data]);
    if (!this.sawIntro) {
      if (this.buffered.length < INTRO_HEADER_LENGTH) return [];
      if (this.buffered[0] === 0x45 && this.buffered[1] === 0x44) {
        throw new Error('routing-info intro header is not supported by the fake');
      }
      this.buffered = this.buffered.subarray(INTRO_HEADER_LENGTH);
      this.sawIntro = true;
    }
    const frames: Buffer[] = [];
    while (this.buffered.length >= 3) {
      const size = (this.buffered[0]! << 16) | (this.buffered[1]! << 8) | this.buffered[2]!;
      if (this.buffered.length < size + 3) break;
      frames.push(Buffer.from(this.buffered.subarray(3, size + 3)));
      this.buffered = this.buffered.subarray(size + 3);
    }
    return frames;
  }
}

export function lengthPrefixed(data: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(3 + data.byteLength);
  out[0] = (data.byteLength >>> 16) & 0xff;
  out[1] = (data.byteLength >>> 8) & 0xff;
  out[2] = data.byteLength & 0xff;
  out.set(data, 3);
  return out;
}
