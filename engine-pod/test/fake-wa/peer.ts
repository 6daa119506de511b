import {
  addTransactionCapability,
  type BinaryNode,
  Curve,
  DEFAULT_CONNECTION_CONFIG,
  encodeBigEndian,
  generateRegistrationId,
  generateSignalPubKey,
  KEY_BUNDLE_TYPE,
  type KeyPair,
  proto,
  type SignalDataSet,
  type SignalDataTypeMap,
  type SignalRepositoryWithLIDStore,
  signedKeyPair,
  unpadRandomMax16,
  writeRandomPadMax16,
  xmppPreKey,
  xmppSignedPreKey,
} from '@whiskeysockets/baileys';
import { pino } from 'pino';

const silent = pino({ level: 'silent' });

/** A device's keys as the client uploaded them: what a sender needs to start a signal session with it. */
export interface UploadedKeys {
  readonly registrationId: number;
  readonly identityKey: Uint8Array;
  readonly signedPreKey: { keyId: number; publicKey: Uint8Array; signature: Uint8Array };
  /** A one-time pre-key taken from the uploaded ones (each used once), or none left. */
  takePreKey(): { keyId: number; publicKey: Uint8Array } | undefined;
}

/** The signal keys of one device the engine may send to: a contact's phone, or the account's own. */
export class FakePeer {
  private readonly registrationId = generateRegistrationId();
  private readonly signedPreKey: ReturnType<typeof signedKeyPair>;
  private readonly keys = new Map<string, unknown>();
  private nextPreKeyId = 1;
  private repository: SignalRepositoryWithLIDStore | null = null;
  /** The groups (and devices) this device's sender key went to already. */
  private readonly sharedSenderKeys = new Set<string>();

  /** The account's own phone signs with its account key, which is its signal identity too (whatsmeow checks that). */
  constructor(private readonly identity: KeyPair = Curve.generateKeyPair()) {
    this.signedPreKey = signedKeyPair(identity, 1);
  }

  /** One `<user>` of an `encrypt`/`key` answer: a fresh one-time pre-key each time, as the server hands out. */
  keyBundle(jid: string): BinaryNode {
    const id = this.nextPreKeyId++;
    const preKey = Curve.generateKeyPair();
    this.keys.set(`pre-key:${id}`, preKey);
    return {
      tag: 'user',
      attrs: { jid },
      content: [
        { tag: 'registration', attrs: {}, content: encodeBigEndian(this.registrationId) },
        { tag: 'type', attrs: {}, content: KEY_BUNDLE_TYPE },
        { tag: 'identity', attrs: {}, content: this.identity.public },
        xmppSignedPreKey(this.signedPreKey),
        xmppPreKey(preKey, id),
      ],
    };
  }

  /** Decrypts what the engine sent this device, as the real phone would. */
  async decrypt(senderJid: string, type: 'pkmsg' | 'msg', ciphertext: Uint8Array): Promise<proto.IMessage> {
    const plaintext = await this.signal().decryptMessage({ jid: senderJid, type, ciphertext });
    return proto.Message.decode(unpadRandomMax16(plaintext));
  }

  /**
   * Encrypts a message for a device, as its sender's phone would: a session is started from the
   * device's uploaded keys the first time (the result is a `pkmsg`), later messages are `msg`.
   */
  async encrypt(recipientJid: string, keys: UploadedKeys, message: proto.IMessage): Promise<{ type: 'pkmsg' | 'msg'; ciphertext: Uint8Array }> {
    const repository = this.signal();
    if (!(await repository.validateSession(recipientJid)).exists) {
      const preKey = keys.takePreKey();
      await repository.injectE2ESession({
        jid: recipientJid,
        session: {
          registrationId: keys.registrationId,
          identityKey: generateSignalPubKey(keys.identityKey),
          signedPreKey: { ...keys.signedPreKey, publicKey: generateSignalPubKey(keys.signedPreKey.publicKey) },
          ...(preKey ? { preKey: { keyId: preKey.keyId, publicKey: generateSignalPubKey(preKey.publicKey) } } : {}),
        },
      });
    }
    return repository.encryptMessage({ jid: recipientJid, data: writeRandomPadMax16(proto.Message.encode(message).finish()) });
  }

  /**
   * A group message as a member's device sends it: the content under its sender key (`skmsg`),
   * and, for a device that has not got that key yet, the key's distribution message encrypted to
   * it (`pkmsg`/`msg`), which comes first.
   */
  async encryptForGroup(
    group: string,
    senderJid: string,
    recipientJid: string,
    keys: UploadedKeys,
    message: proto.IMessage,
  ): Promise<{ distribution: { type: 'pkmsg' | 'msg'; ciphertext: Uint8Array } | null; ciphertext: Uint8Array }> {
    const repository = this.signal();
    const data = writeRandomPadMax16(proto.Message.encode(message).finish());
    const { senderKeyDistributionMessage, ciphertext } = await repository.encryptGroupMessage({ group, meId: senderJid, data });
    const shared = `${group}|${recipientJid}`;
    if (this.sharedSenderKeys.has(shared)) return { distribution: null, ciphertext };
    this.sharedSenderKeys.add(shared);
    const distribution = await this.encrypt(recipientJid, keys, {
      senderKeyDistributionMessage: { groupId: group, axolotlSenderKeyDistributionMessage: senderKeyDistributionMessage },
    });
    return { distribution, ciphertext };
  }

  /**
   * What this device reads of a sender-key send (a group's or a status's): the sender key from the
   * distribution message that came to it (`pkmsg`/`msg`), then the content under that key (`skmsg`).
   */
  async decryptForGroup(
    group: string,
    senderJid: string,
    authorJid: string,
    distribution: { type: 'pkmsg' | 'msg'; ciphertext: Uint8Array },
    ciphertext: Uint8Array,
  ): Promise<proto.IMessage> {
    const { senderKeyDistributionMessage: item } = await this.decrypt(senderJid, distribution.type, distribution.ciphertext);
    if (!item) throw new Error(`no sender key distribution for ${group} from ${senderJid}`);
    await this.signal().processSenderKeyDistributionMessage({ item, authorJid });
    const plaintext = await this.signal().decryptGroupMessage({ group, authorJid, msg: ciphertext });
    return proto.Message.decode(unpadRandomMax16(plaintext));
  }

  private signal(): SignalRepositoryWithLIDStore {
    if (this.repository) return this.repository;
    const store = {
      get: async <T extends keyof SignalDataTypeMap>(type: T, ids: string[]) => {
        const found: Record<string, SignalDataTypeMap[T]> = {};
        for (const id of ids) {
          const value = this.keys.get(`${type}:${id}`);
          if (value !== undefined) found[id] = value as SignalDataTypeMap[T];
        }
        return found;
      },
      set: async (data: SignalDataSet) => {
        for (const [type, values] of Object.entries(data)) {
          for (const [id, value] of Object.entries(values ?? {})) {
            if (value === null || value === undefined) this.keys.delete(`${type}:${id}`);
            else this.keys.set(`${type}:${id}`, value);
          }
        }
      },
    };
    const keys = addTransactionCapability(store, silent, { maxCommitRetries: 1, delayBetweenTriesMs: 0 });
    const creds = {
      signedIdentityKey: this.identity,
      signedPreKey: this.signedPreKey,
      registrationId: this.registrationId,
    } as Parameters<typeof DEFAULT_CONNECTION_CONFIG.makeSignalRepository>[0]['creds'];
    this.repository = DEFAULT_CONNECTION_CONFIG.makeSignalRepository({ creds, keys }, silent, async () => []);
    return this.repository;
  }
}
