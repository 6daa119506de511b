import { randomBytes } from 'node:crypto';
import {
  type BinaryNode,
  Curve,
  getAllBinaryNodeChildren,
  getBinaryNodeChild,
  getBinaryNodeChildren,
  type KeyPair,
  proto,
} from '@whiskeysockets/baileys';
import { encryptPollVote } from '../../src/engines/noweb/polls.js';
import { FakeAppState } from './app-state.js';
import type { FakeConnection } from './connection.js';
import type { CodePairing } from './pairing.js';
import type { FakePeer, UploadedKeys } from './peer.js';
import { FakeProfile } from './profile.js';
import type { FakeMediaServer } from './media-server.js';
import {
  type CallKind,
  callStanza,
  groupNotification,
  type HistoryConversation,
  historySyncBlob,
  historySyncMessage,
  type MessageStanzaOptions,
  messageStanza,
  type PresenceKind,
  presenceStanza,
  receiptStanza,
  serverSyncNotification,
  userJid,
} from './stanzas.js';

/** What the fake needs from its server to act for a phone. */
export interface PhoneServer {
  peer(jid: string): FakePeer;
  /** Direct messages to the companion are Signal-encrypted (`enc`), not `plaintext` (whatsmeow decrypts only those). */
  readonly signal: boolean;
  /** A number's LID (`<lid>@lid`), as the server stamps on stanzas (`sender_lid`). */
  lidOf(jid: string): string | undefined;
  /** The phone number of a user or device jid, by its number or its LID. */
  phoneOf(jid: string): string;
}

/** What the client acknowledges; the rest (presence, chat state, `ib`) is fire and forget. */
const ACKED = new Set(['message', 'receipt', 'notification', 'call']);

export interface SentMessage {
  readonly id: string;
  readonly to: string;
  readonly node: BinaryNode;
}

/**
 * One account: the phone (the primary device) and what the server knows of its companion. Tests
 * drive the other side of a session through it: contacts writing, reacting, calling; receipts;
 * changes made on the phone (labels, archive); the device being removed.
 */
export class FakePhone {
  readonly accountKey: KeyPair = Curve.generateKeyPair();
  readonly appState = new FakeAppState();
  /** The About text and picture the companion set. */
  readonly profile: FakeProfile;
  companion: { device: number; noiseKey: Buffer; identityKey: Buffer } | null = null;
  connection: FakeConnection | null = null;
  preKeysOnServer = 0;
  codePairing: { pairing: CodePairing; connection: FakeConnection } | null = null;
  /** Every message stanza the companion sent, in order. */
  readonly sent: SentMessage[] = [];
  /** What the companion answered to calls (`reject` children with the call id and creator). */
  readonly callAnswers: BinaryNode[] = [];
  /** Receipts the companion sent (`read` for messages it marked read), with every id they name. */
  readonly receiptsSent: { type: string; to: string; participant: string | null; ids: string[] }[] = [];
  /** Chat states the companion sent: `composing` (typing) or `paused`, and to whom. */
  readonly chatStates: { to: string; state: string }[] = [];
  /** The chats and messages the phone had before pairing: its first history sync carries them (set before the scan). */
  history: HistoryConversation[] = [];
  private historyDelivered = false;
  private readonly offline: BinaryNode[] = [];
  private readonly unacked = new Map<string, BinaryNode>();
  private readonly decrypted = new Map<string, proto.IMessage>();
  /** The companion's signal keys from its pre-key upload (`signal` mode seals messages with them). */
  private companionKeys: UploadedKeys | null = null;
  private unusedPreKeys: { keyId: number; publicKey: Buffer }[] = [];
  private keysUploaded: Promise<void>;
  private onKeysUploaded: () => void = () => {};
  /** Deliveries in `signal` mode: sealed one after the other, so they keep their order. */
  private outbox: Promise<void> = Promise.resolve();

  constructor(
    readonly phone: string,
    readonly lid: string,
    readonly pushName: string,
    private readonly server: PhoneServer,
  ) {
    this.profile = new FakeProfile(phone);
    this.keysUploaded = this.waitForKeys();
  }

  private waitForKeys(): Promise<void> {
    return new Promise((resolve) => {
      this.onKeysUploaded = resolve;
    });
  }

  /** A new companion: its keys come with its first pre-key upload. */
  linked(companion: { device: number; noiseKey: Buffer; identityKey: Buffer }): void {
    this.companion = companion;
    this.preKeysOnServer = 0;
    this.companionKeys = null;
    this.unusedPreKeys = [];
    this.keysUploaded = this.waitForKeys();
  }

  /** The client's pre-key upload (`encrypt` set): registration id, identity, one-time keys, signed key. */
  preKeysUploaded(iq: BinaryNode): void {
    const bytes = (node: BinaryNode | undefined) => Buffer.from((node?.content as Uint8Array | undefined) ?? []);
    const keyOf = (node: BinaryNode | undefined) => ({
      keyId: bytes(getBinaryNodeChild(node, 'id')).readUIntBE(0, 3),
      publicKey: bytes(getBinaryNodeChild(node, 'value')),
    });
    const preKeys = getBinaryNodeChildren(getBinaryNodeChild(iq, 'list'), 'key').map(keyOf);
    this.preKeysOnServer += preKeys.length;
    const skey = getBinaryNodeChild(iq, 'skey');
    this.unusedPreKeys.push(...preKeys);
    this.companionKeys = {
      registrationId: bytes(getBinaryNodeChild(iq, 'registration')).readUInt32BE(0),
      identityKey: bytes(getBinaryNodeChild(iq, 'identity')),
      signedPreKey: { ...keyOf(skey), signature: bytes(getBinaryNodeChild(skey, 'signature')) },
      takePreKey: () => {
        const taken = this.unusedPreKeys.shift();
        if (taken) this.preKeysOnServer -= 1;
        return taken;
      },
    };
    this.onKeysUploaded();
  }

  get jid(): string {
    return `${this.phone}@s.whatsapp.net`;
  }

  /** `<number>@c.us`: the `me.id` a paired session reports. */
  get contactId(): string {
    return `${this.phone}@c.us`;
  }

  get companionJid(): string {
    return `${this.phone}:${this.companion?.device ?? 0}@s.whatsapp.net`;
  }

  get isConnected(): boolean {
    return !!this.connection?.isOpen;
  }

  /**
   * A stanza for the companion: now if it is connected, else at its next login (`offline`). As the
   * real server does, it is kept until the client acknowledges it (an `ack`, or a `receipt` for a
   * message) and delivered again at the next login if it never was.
   */
  deliver(node: BinaryNode): void {
    if (!this.server.signal) {
      this.deliverNow(node);
      return;
    }
    this.outbox = this.outbox
      .then(() => this.seal(node))
      .then((sealed) => this.deliverNow(sealed))
      .catch((error: unknown) => {
        process.stderr.write(`[fake-wa] could not seal a message for ${this.phone}: ${String(error)}\n`);
      });
  }

  /**
   * A direct message as WhatsApp delivers it: its content encrypted by the sender's device for the
   * companion (`enc` v2, `pkmsg` for the first, then `msg`), once the companion uploaded its keys.
   */
  private async seal(node: BinaryNode): Promise<BinaryNode> {
    const plaintext = node.tag === 'message' ? getBinaryNodeChild(node, 'plaintext') : undefined;
    if (!plaintext || !this.companion) return node;
    await this.keysUploaded;
    const keys = this.companionKeys!;
    const message = proto.Message.decode(plaintext.content as Uint8Array);
    const member = node.attrs.participant;
    if (member) {
      // A group: the member's sender key (`skmsg`), its distribution first the first time.
      const { distribution, ciphertext } = await this.server
        .peer(member)
        .encryptForGroup(node.attrs.from ?? '', member, this.companionJid, keys, message);
      const encs: BinaryNode[] = [
        ...(distribution ? [{ tag: 'enc', attrs: { v: '2', type: distribution.type }, content: distribution.ciphertext }] : []),
        { tag: 'enc', attrs: { v: '2', type: 'skmsg' }, content: ciphertext },
      ];
      return { ...node, content: encs };
    }
    const { type, ciphertext } = await this.server.peer(node.attrs.from ?? '').encrypt(this.companionJid, keys, message);
    // The server names a sender by both addresses: a number's LID rides along (`sender_lid`).
    const senderLid = node.attrs.from?.endsWith('@s.whatsapp.net') && !node.attrs.sender_lid ? this.server.lidOf(node.attrs.from) : undefined;
    const attrs = senderLid ? { ...node.attrs, sender_lid: senderLid } : node.attrs;
    return { ...node, attrs, content: [{ tag: 'enc', attrs: { v: '2', type }, content: ciphertext }] };
  }

  private deliverNow(node: BinaryNode): void {
    if (ACKED.has(node.tag)) this.unacked.set(`${node.tag}:${node.attrs.id}`, node);
    // A silenced connection delivers nothing: what is not kept as unacknowledged waits for the next login.
    if (this.connection?.isOpen && !this.connection.isSilent) this.connection.send(node);
    else if (!ACKED.has(node.tag)) this.offline.push(node);
  }

  /** The client acknowledged a stanza of ours. */
  acknowledged(tag: string, id: string): void {
    this.unacked.delete(`${tag}:${id}`);
  }

  /** After `success`: what the client has not acknowledged or missed, then the offline marker. */
  flushOffline(connection: FakeConnection): void {
    const queued = [...this.unacked.values(), ...this.offline.splice(0)];
    for (const node of queued) connection.send({ ...node, attrs: { ...node.attrs, offline: String(queued.length) } });
    connection.send({ tag: 'ib', attrs: {}, content: [{ tag: 'offline', attrs: { count: String(queued.length) } }] });
    if (!this.historyDelivered) {
      this.historyDelivered = true;
      // The account's name is app state too (critical_block); whatsmeow takes it only from there.
      if (this.server.signal) this.outbox = this.outbox.then(() => this.appState.change({ pushNameSetting: this.pushName }, '')).then(() => {});
      // What the phone sends a new companion: the app state key, then its first history sync.
      this.deliver(messageStanza({ from: this.jid, pushName: this.pushName }, this.appState.keyShare()));
      this.deliver(messageStanza({ from: this.jid, pushName: this.pushName }, historySyncMessage(this.pushName, this.jid, this.history)));
    }
  }

  /** A message from a contact (or, with `from` the account itself, from the phone). Returns its id. */
  message(options: MessageStanzaOptions, message: proto.IMessage): string {
    const node = messageStanza(options, message);
    this.deliver(node);
    return node.attrs.id!;
  }

  /**
   * A later history sync (RECENT), as the phone sends its bigger ones: the zlib'd HistorySync
   * encrypted on the media server, the notification naming it. Returns the notification's id.
   */
  async syncHistory(conversations: readonly HistoryConversation[], media: FakeMediaServer): Promise<string> {
    const syncType = proto.HistorySync.HistorySyncType.RECENT;
    const uploaded = await media.upload(historySyncBlob(syncType, conversations), 'md-msg-hist');
    return this.message(
      { from: this.jid },
      {
        protocolMessage: {
          type: proto.Message.ProtocolMessage.Type.HISTORY_SYNC_NOTIFICATION,
          historySyncNotification: {
            syncType,
            directPath: uploaded.directPath,
            mediaKey: uploaded.mediaKey,
            fileSha256: uploaded.fileSha256,
            fileEncSha256: uploaded.fileEncSha256,
            fileLength: uploaded.fileLength,
            progress: 100,
            chunkOrder: 1,
          },
        },
      },
    );
  }

  text(from: string, text: string, options: Omit<MessageStanzaOptions, 'from'> = {}): string {
    return this.message({ ...options, from }, { conversation: text });
  }

  reaction(from: string, target: { id: string; fromMe: boolean }, emoji: string, options: Omit<MessageStanzaOptions, 'from'> = {}): string {
    // The key as the reacting contact sees the target: its `fromMe` is the contact's own.
    const key = target.fromMe ? { remoteJid: this.jid, fromMe: false, id: target.id } : { remoteJid: userJid(from), fromMe: true, id: target.id };
    return this.message({ ...options, from, type: 'reaction' }, { reactionMessage: { key, text: emoji, senderTimestampMs: Date.now() } });
  }

  edit(from: string, targetId: string, text: string, options: Omit<MessageStanzaOptions, 'from'> = {}): string {
    return this.message(
      { ...options, from, attrs: { edit: '1', ...options.attrs } },
      {
        protocolMessage: {
          key: { remoteJid: userJid(from), fromMe: true, id: targetId },
          type: proto.Message.ProtocolMessage.Type.MESSAGE_EDIT,
          editedMessage: { conversation: text },
          timestampMs: Date.now(),
        },
      },
    );
  }

  revoke(from: string, targetId: string, options: Omit<MessageStanzaOptions, 'from'> = {}): string {
    return this.message(
      { ...options, from, attrs: { edit: '7', ...options.attrs } },
      {
        protocolMessage: {
          key: { remoteJid: userJid(from), fromMe: true, id: targetId },
          type: proto.Message.ProtocolMessage.Type.REVOKE,
        },
      },
    );
  }

  /** A poll created by a contact; keep the result to vote on it. */
  poll(from: string, name: string, options: readonly string[]): { id: string; creator: string; secret: Buffer } {
    const secret = randomBytes(32);
    const id = this.message(
      { from, type: 'poll' },
      {
        pollCreationMessageV3: { name, options: options.map((optionName) => ({ optionName })), selectableOptionsCount: 1 },
        messageContextInfo: { messageSecret: secret },
      },
    );
    return { id, creator: userJid(from), secret };
  }

  vote(from: string, poll: { id: string; creator: string; secret: Buffer }, options: readonly string[]): string {
    const vote = encryptPollVote(options, {
      pollMsgId: poll.id,
      pollCreatorJid: poll.creator,
      voterJid: userJid(from),
      secret: poll.secret,
    });
    return this.message(
      { from, type: 'poll' },
      {
        pollUpdateMessage: {
          pollCreationMessageKey: { remoteJid: this.jid, fromMe: poll.creator === userJid(from), id: poll.id },
          vote,
          senderTimestampMs: Date.now(),
        },
      },
    );
  }

  receipt(id: string, from: string, type?: 'read' | 'played', participant?: string): void {
    this.deliver(receiptStanza(id, from, type, participant));
  }

  presence(from: string, kind: PresenceKind, options: { lastSeen?: number; participant?: string } = {}): void {
    this.deliver(presenceStanza(from, kind, options));
  }

  call(from: string, kind: CallKind, options: { id?: string; video?: boolean; group?: string } = {}): string {
    const id = options.id ?? randomBytes(16).toString('hex').toUpperCase();
    this.deliver(callStanza(from, id, kind, options));
    return id;
  }

  group(group: string, author: string, change: BinaryNode): void {
    this.deliver(groupNotification(group, author, change));
  }

  /** "Your groups changed": the client fetches every group it is in again. */
  groupsDirty(): void {
    this.deliver({ tag: 'ib', attrs: {}, content: [{ tag: 'dirty', attrs: { type: 'groups', timestamp: String(Math.floor(Date.now() / 1000)) } }] });
  }

  /** A label created or changed on the phone (WhatsApp Business). */
  async label(label: { id: string; name: string; color: number; deleted?: boolean }): Promise<void> {
    await this.syncChange({ addLabel: { id: label.id, name: label.name, color: label.color, deleted: !!label.deleted } }, '');
  }

  async labelChat(labelId: string, chat: string, labeled: boolean): Promise<void> {
    const modification = labeled ? { addChatLabel: { labelId } } : { removeChatLabel: { labelId } };
    await this.syncChange(modification, userJid(chat));
  }

  /** An address book entry the phone syncs (`contactAction`), with the contact's linked id as WhatsApp adds it. */
  async addressBookEntry(phone: string, entry: { fullName: string; lid: string }): Promise<void> {
    await this.syncChange({ contact: { fullName: entry.fullName, lidJid: `${entry.lid}@lid` } }, userJid(phone));
  }

  async archive(chat: string, archived: boolean): Promise<void> {
    await this.syncChange({ archive: archived, lastMessages: [] }, userJid(chat));
  }

  /** The chat deleted on the phone (`deleteChatAction`), as WhatsApp syncs it to the linked devices. */
  async deleteChat(chat: string): Promise<void> {
    await this.syncChange({ delete: true, lastMessages: [] }, userJid(chat));
  }

  /** The phone unlinks the companion: the connection ends with 401 and the server forgets it. */
  removeCompanion(): void {
    this.companion = null;
    this.companionKeys = null;
    this.connection?.endStream('401', { tag: 'conflict', attrs: { type: 'device_removed' } });
    this.connection = null;
  }

  /**
   * The server goes quiet on the companion's connection: the socket stays open, nothing the client
   * sends is answered (pings and queries included) and nothing is delivered, until `resume()` or
   * until the client connects again (a new connection is served normally). Messages delivered
   * meanwhile stay unacknowledged and come again at the next login, as the service does.
   */
  silence(): void {
    if (!this.connection?.isOpen) throw new Error(`the companion of ${this.phone} is not connected: nothing to silence`);
    this.connection.silence();
  }

  /** The server answers on the companion's connection again (after `silence()`). */
  resume(): void {
    this.connection?.resume();
  }

  /** The network drops, no close handshake: the client has to notice and reconnect. */
  dropConnection(): void {
    this.connection?.drop();
  }

  recordReceipt(node: BinaryNode): void {
    const listed = getBinaryNodeChildren(getBinaryNodeChild(node, 'list'), 'item').map((item) => item.attrs.id ?? '');
    this.receiptsSent.push({
      type: node.attrs.type ?? 'delivery',
      to: node.attrs.to ?? '',
      participant: node.attrs.participant ?? null,
      ids: [node.attrs.id ?? '', ...listed],
    });
  }

  recordChatState(node: BinaryNode): void {
    const state = getAllBinaryNodeChildren(node)[0];
    this.chatStates.push({ to: node.attrs.to ?? '', state: state?.tag ?? '' });
  }

  recordCallAnswer(node: BinaryNode): void {
    this.callAnswers.push(node);
  }

  recordSent(node: BinaryNode): void {
    this.sent.push({ id: node.attrs.id ?? '', to: node.attrs.to ?? '', node });
  }

  /** What a contact's phone reads from a message the companion sent: decrypted with its keys. */
  async read(id: string): Promise<proto.IMessage> {
    const cached = this.decrypted.get(id);
    if (cached) return cached;
    const sent = this.sent.find((s) => s.id === id);
    if (!sent) throw new Error(`the companion of ${this.phone} sent no message ${id}`);
    const recipient = sent.to.split('@')[0]!;
    const participants = getBinaryNodeChildren(getBinaryNodeChild(sent.node, 'participants'), 'to');
    const target = participants.find((to) => to.attrs.jid?.split(/[:@]/)[0] === recipient.split(':')[0]);
    const enc = getBinaryNodeChild(target, 'enc');
    if (!enc || !(enc.content instanceof Uint8Array)) throw new Error(`message ${id} has nothing encrypted for ${sent.to}`);
    const message = await this.server.peer(sent.to).decrypt(this.companionJid, enc.attrs.type as 'pkmsg' | 'msg', enc.content);
    this.decrypted.set(id, message);
    return message;
  }

  /**
   * A status the companion posted (or revoked), as each viewer's phone reads it: the user of every
   * device its sender key went to (`participants`), and the content under the key (`skmsg`), read
   * by the first of them. The account's sender key is named by its LID device, as the library does.
   */
  async readStatus(id: string): Promise<{ message: proto.IMessage; recipients: string[]; edit: string | null }> {
    const sent = this.sent.find((s) => s.id === id && s.to === 'status@broadcast');
    if (!sent) throw new Error(`the companion of ${this.phone} posted no status ${id}`);
    const devices = getBinaryNodeChildren(getBinaryNodeChild(sent.node, 'participants'), 'to');
    const recipients = [...new Set(devices.map((to) => this.server.phoneOf(to.attrs.jid ?? '')))].sort();
    const skmsg = getBinaryNodeChildren(sent.node, 'enc').find((enc) => enc.attrs.type === 'skmsg');
    const first = devices.find((to) => this.server.phoneOf(to.attrs.jid ?? '') !== this.phone) ?? devices[0];
    const distribution = getBinaryNodeChild(first, 'enc');
    if (!skmsg || !first || !distribution) throw new Error(`status ${id} has no sender key message or no recipient`);
    const message = await this.server
      .peer(first.attrs.jid ?? '')
      .decryptForGroup(
        'status@broadcast',
        this.companionJid,
        `${this.lid}:${this.companion?.device ?? 0}@lid`,
        { type: distribution.attrs.type as 'pkmsg' | 'msg', ciphertext: distribution.content as Uint8Array },
        skmsg.content as Uint8Array,
      );
    return { message, recipients, edit: sent.node.attrs.edit ?? null };
  }

  private async syncChange(modification: Parameters<FakeAppState['change']>[0], jid: string): Promise<void> {
    const collection = await this.appState.change(modification, jid);
    this.deliver(serverSyncNotification(collection, this.appState.version(collection)));
  }
}
