import { randomBytes } from 'node:crypto';
import {
  type BinaryNode,
  binaryNodeToString,
  Curve,
  getBinaryNodeChild,
  getBinaryNodeChildBuffer,
  getBinaryNodeChildren,
  jidDecode,
  type proto,
} from '@whiskeysockets/baileys';
import { type ConnectionHandler, FakeConnection, newId } from './connection.js';
import { type FakeGroup, newGroup } from './groups.js';
import { answerIq } from './iq-answers.js';
import { FakeNewsletters } from './newsletters.js';
import type { FakeMediaServer } from './media-server.js';
import { certChain } from './noise.js';
import { CodePairing, pairSuccess, parseQr } from './pairing.js';
import { FakePeer } from './peer.js';
import { FakePhone } from './phone.js';
import { nowSeconds } from './stanzas.js';
import { WebSocketServer } from './websocket-server.js';

export interface FakeWaOptions {
  readonly port?: number;
  /** The address to listen on; default 127.0.0.1. A real node's pods reach the host at its bridge address. */
  readonly host?: string;
  /** Every unknown node and protocol event; default: stderr when `FAKE_WA_DEBUG` is set. */
  readonly log?: (line: string) => void;
  /**
   * Deliver direct messages Signal-encrypted to the companion's uploaded keys (`enc`), as
   * WhatsApp does; whatsmeow (GOWS) needs it. Unset: `plaintext`, which Baileys reads without sessions.
   */
  readonly signal?: boolean;
  /**
   * The root key pair of the certificate chain, hex (`newCertRoot`): the contract suite's cluster
   * mode gives engine pods the public key before the test that starts this server runs
   * (test/e2e/support/contract-cluster-setup.ts). Default: a new pair.
   */
  readonly certRoot?: CertRoot;
}

/** A root key pair of the certificate chain, hex; `publicKey` is what `SWITCHBOARD_GOWS_CERT_ROOT_PUBKEY` gives whatsmeow. */
export interface CertRoot {
  readonly privateKey: string;
  readonly publicKey: string;
}

export function newCertRoot(): CertRoot {
  const pair = Curve.generateKeyPair();
  return { privateKey: Buffer.from(pair.private).toString('hex'), publicKey: Buffer.from(pair.public).toString('hex') };
}

export interface PhoneOptions {
  /** Digits; default: the next free test number. */
  readonly phone?: string;
  readonly lid?: string;
  readonly pushName?: string;
}

/**
 * A fake WhatsApp Web server for the unmodified Baileys client: the Noise handshake, companion
 * pairing (QR and code), login, the queries a client makes, and delivery of what tests make the
 * phones and contacts do. One server holds any number of accounts (`FakePhone`).
 */
export class FakeWaServer implements ConnectionHandler {
  private readonly staticKey = Curve.generateKeyPair();
  private readonly certRoot: ReturnType<typeof Curve.generateKeyPair>;
  private readonly certChain: Uint8Array;
  private readonly ws: WebSocketServer;
  private readonly phones = new Map<string, FakePhone>();
  private readonly refs = new Map<string, FakeConnection>();
  private readonly peers = new Map<string, FakePeer>();
  private readonly lidToPhone = new Map<string, string>();
  private readonly phoneToLid = new Map<string, string>();
  private readonly groups = new Map<string, FakeGroup>();
  private readonly unregistered = new Set<string>();
  private readonly abouts = new Map<string, string>();
  /** Client versions the service has retired: a handshake presenting one gets a 405 connect failure. */
  private readonly retiredVersions = new Set<string>();
  /** The client version each handshake presented ("2.3000.1023456789"), in order. */
  readonly presentedVersions: string[] = [];
  /** The media host `media_conn` names, for clients uploading files (`serveMedia`). */
  private media: FakeMediaServer | null = null;
  private readonly connections = new Set<FakeConnection>();
  private readonly log: (line: string) => void;
  private nextNumber = 15550100000 + Math.floor(Math.random() * 1000) * 100;
  /** Nodes the fake does not know, for tests and debugging: nothing here means nothing was missed. */
  readonly unknown: BinaryNode[] = [];
  /** The service's channels: `newsletters.add({ name, ... })` for others' channels, `.post(id, text)` for their posts. */
  readonly newsletters = new FakeNewsletters();
  url = '';
  readonly signal: boolean;

  /** The root key of the server's certificate chain, hex: what `SWITCHBOARD_GOWS_CERT_ROOT_PUBKEY` gives whatsmeow. */
  get certRootPublicKey(): string {
    return Buffer.from(this.certRoot.public).toString('hex');
  }

  private constructor(options: FakeWaOptions) {
    this.signal = !!options.signal;
    this.certRoot = options.certRoot
      ? { private: Buffer.from(options.certRoot.privateKey, 'hex'), public: Buffer.from(options.certRoot.publicKey, 'hex') }
      : Curve.generateKeyPair();
    this.certChain = certChain(this.certRoot, this.staticKey);
    this.log = options.log ?? (process.env.FAKE_WA_DEBUG ? (line) => process.stderr.write(`[fake-wa] ${line}\n`) : () => {});
    this.ws = new WebSocketServer((socket) => {
      this.connections.add(new FakeConnection(socket, this.staticKey, this.certChain, this));
    });
  }

  static async start(options: FakeWaOptions = {}): Promise<FakeWaServer> {
    const server = new FakeWaServer(options);
    const host = options.host ?? '127.0.0.1';
    const port = await server.ws.listen(options.port ?? 0, host);
    server.url = `ws://${host.includes(':') ? `[${host}]` : host}:${port}/ws/chat`;
    return server;
  }

  async close(): Promise<void> {
    for (const connection of this.connections) connection.drop();
    await this.ws.close();
  }

  /** The account with this number (made on first use). */
  phone(options: PhoneOptions | string = {}): FakePhone {
    const { phone = String(this.nextNumber++), lid, pushName } = typeof options === 'string' ? { phone: options } : options;
    let found = this.phones.get(phone);
    if (!found) {
      found = new FakePhone(phone, lid ?? String(100_000_000_000_000 + Number(phone)), pushName ?? `Phone ${phone.slice(-4)}`, this);
      this.phones.set(phone, found);
      this.contact(phone, found.lid);
    }
    return found;
  }

  /** A phone number (digits) without an account: "is it on WhatsApp" queries answer no. */
  notOnWhatsApp(phone: string): void {
    this.unregistered.add(phone);
  }

  /** A user's About text, as usync `status` queries (Baileys' fetchStatus, whatsmeow's GetUserInfo) read it. */
  about(phone: string, text: string): void {
    this.abouts.set(phone, text);
  }

  /** Clients asking where to upload files (`media_conn`) are sent to this media server. */
  serveMedia(media: FakeMediaServer): void {
    this.media = media;
  }

  /** Declares a contact's LID, which device queries then report. */
  contact(phone: string, lid: string): void {
    this.lidToPhone.set(lid, phone);
    this.phoneToLid.set(phone, lid);
  }

  /**
   * A user's LID: as WhatsApp does now, every phone number has one; a contact not declared with
   * `contact()` gets one made from its number. LIDs are answered as they are.
   */
  lidOf(jid: string): string | undefined {
    const decoded = jidDecode(jid);
    if (!decoded?.user || decoded.server !== 's.whatsapp.net') return undefined;
    let lid = this.phoneToLid.get(decoded.user);
    if (!lid) {
      lid = `8${decoded.user}`;
      this.contact(decoded.user, lid);
    }
    return `${lid}@lid`;
  }

  group(id: string, fields: Partial<Omit<FakeGroup, 'id'>> & { creator: string }): FakeGroup {
    const group = newGroup(id, fields);
    this.groups.set(group.id, group);
    return group;
  }

  /** A group the server has, by its id (`<id>@g.us`), as the clients' queries left it. */
  groupById(id: string): FakeGroup | undefined {
    return this.groups.get(id);
  }

  /** The phone number of a user or device jid (`<number>[:<device>]@s.whatsapp.net` or a LID). */
  phoneOf(jid: string): string {
    const user = jidDecode(jid)?.user ?? jid;
    return this.lidToPhone.get(user) ?? [...this.phones.values()].find((phone) => phone.lid === user)?.phone ?? user;
  }

  peer(jid: string): FakePeer {
    const user = jidDecode(jid)?.user ?? jid;
    const key = this.lidToPhone.get(user) ?? user;
    let peer = this.peers.get(key);
    if (!peer) {
      peer = new FakePeer(this.phones.get(key)?.accountKey);
      this.peers.set(key, peer);
    }
    return peer;
  }

  /** The phone scans a QR code the client shows: the client gets `pair-success`, then a 515 restart. */
  async scanQr(qr: string, options: PhoneOptions = {}): Promise<FakePhone> {
    const scanned = parseQr(qr);
    const connection = this.refs.get(scanned.ref);
    if (!connection?.isOpen) throw new Error(`no connected client shows the QR code with ref ${scanned.ref}`);
    const phone = this.phone(options);
    await this.link(connection, phone, scanned.identityKey, scanned.advSecret);
    return phone;
  }

  /** The user types the pairing code the client got from `requestPairingCode` into the phone. */
  async enterPairingCode(number: string, code: string, timeoutMs = 5_000): Promise<FakePhone> {
    const phone = this.phone(number);
    const deadline = Date.now() + timeoutMs;
    while (!phone.codePairing) {
      if (Date.now() > deadline) throw new Error(`no client asked to pair ${number} by code`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const { pairing, connection } = phone.codePairing;
    connection.send(await pairing.enter(code));
    while (!phone.companion) {
      if (Date.now() > deadline) throw new Error(`pairing ${number} by code did not complete`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return phone;
  }

  /**
   * Retires a client version, as the service does: from now on a handshake that presents it is
   * answered with the connect failure whatsmeow and Baileys read as "client outdated" (405).
   */
  retireClientVersion(version: string): void {
    this.retiredVersions.add(version);
  }

  onHello(connection: FakeConnection, payload: proto.ClientPayload): void {
    const app = payload.userAgent?.appVersion;
    const version = [app?.primary ?? 0, app?.secondary ?? 0, app?.tertiary ?? 0].join('.');
    this.presentedVersions.push(version);
    if (this.retiredVersions.has(version)) {
      this.log(`client version ${version} refused (405)`);
      connection.send({ tag: 'failure', attrs: { reason: '405', location: 'fake' } });
      connection.close();
      return;
    }
    if (payload.devicePairingData) {
      const refs = Array.from({ length: 6 }, () => randomBytes(18).toString('base64'));
      connection.refs = refs;
      for (const ref of refs) this.refs.set(ref, connection);
      connection.send({
        tag: 'iq',
        attrs: { from: '@s.whatsapp.net', type: 'set', id: newId(), xmlns: 'md' },
        content: [{ tag: 'pair-device', attrs: {}, content: refs.map((ref) => ({ tag: 'ref', attrs: {}, content: Buffer.from(ref) })) }],
      });
      return;
    }
    const number = String(payload.username ?? '');
    const phone = this.phones.get(number);
    const noiseKey = connection.clientNoiseKey;
    if (!phone?.companion || phone.companion.device !== (payload.device ?? 0) || !noiseKey?.equals(phone.companion.noiseKey)) {
      this.log(`login refused for ${number}:${payload.device}`);
      connection.send({ tag: 'failure', attrs: { reason: '401', location: 'fake' } });
      connection.close();
      return;
    }
    if (phone.connection?.isOpen && phone.connection !== connection) {
      phone.connection.endStream('440', { tag: 'conflict', attrs: { type: 'replaced' } });
    }
    connection.phone = number;
    phone.connection = connection;
    const lid = `${phone.lid}:${phone.companion.device}@lid`;
    connection.send({ tag: 'success', attrs: { t: nowSeconds(), lid, location: 'fake', creation: nowSeconds() } });
    phone.flushOffline(connection);
  }

  onNode(connection: FakeConnection, node: BinaryNode): void {
    const phone = connection.phone ? (this.phones.get(connection.phone) ?? null) : null;
    switch (node.tag) {
      case 'iq':
        if (node.attrs.type === 'get' || node.attrs.type === 'set') this.answer(connection, phone, node);
        return;
      case 'message':
        phone?.recordSent(node);
        connection.send({ tag: 'ack', attrs: { class: 'message', id: node.attrs.id ?? '', from: node.attrs.to ?? '', t: nowSeconds() } });
        return;
      case 'receipt':
        phone?.recordReceipt(node);
        // A receipt for a message is its acknowledgement, for the message and those listed with it.
        for (const id of [node.attrs.id, ...getBinaryNodeChildren(getBinaryNodeChild(node, 'list'), 'item').map((i) => i.attrs.id)]) {
          if (id) phone?.acknowledged('message', id);
        }
        connection.send({ tag: 'ack', attrs: { class: node.tag, id: node.attrs.id ?? '', from: node.attrs.to ?? '' } });
        return;
      case 'call':
        phone?.recordCallAnswer(node);
        connection.send({ tag: 'ack', attrs: { class: node.tag, id: node.attrs.id ?? '', from: node.attrs.to ?? '' } });
        return;
      case 'ack':
        if (node.attrs.class && node.attrs.id) phone?.acknowledged(node.attrs.class, node.attrs.id);
        return;
      case 'chatstate':
        phone?.recordChatState(node);
        return;
      case 'presence':
      case 'ib':
        return;
      default:
        this.unknown.push(node);
        this.log(`unknown node ${binaryNodeToString(node)}`);
    }
  }

  onClose(connection: FakeConnection): void {
    this.connections.delete(connection);
    for (const ref of connection.refs) this.refs.delete(ref);
    const phone = connection.phone ? this.phones.get(connection.phone) : undefined;
    if (phone?.connection === connection) phone.connection = null;
  }

  private answer(connection: FakeConnection, phone: FakePhone | null, iq: BinaryNode): void {
    const reply = (attrs: Record<string, string>, content?: BinaryNode[]) =>
      connection.send({ tag: 'iq', attrs: { from: iq.attrs.to ?? '@s.whatsapp.net', id: iq.attrs.id ?? '', ...attrs }, content });
    const registration = iq.attrs.xmlns === 'md' ? this.companionRegistration(connection, iq) : null;
    if (registration) {
      reply({ type: 'result' }, registration.content);
      return;
    }
    if (iq.attrs.xmlns === 'md' && getBinaryNodeChild(iq, 'remove-companion-device') && phone) phone.companion = null;
    const answer = answerIq(
      {
        phone,
        peer: (jid) => this.peer(jid),
        group: (jid) => this.groups.get(jid),
        allGroups: () => [...this.groups.values()],
        addGroup: (group) => this.groups.set(group.id, group),
        lidOf: (jid) => this.lidOf(jid),
        isRegistered: (phone) => !this.unregistered.has(phone),
        aboutOf: (jid) => {
          const user = jidDecode(jid)?.user ?? '';
          return user === phone?.phone ? (phone.profile.about ?? undefined) : this.abouts.get(user);
        },
        mediaConn: () => this.media?.mediaConn(),
        newsletters: this.newsletters,
      },
      iq,
    );
    if (answer && 'error' in answer) {
      reply({ type: 'error' }, [{ tag: 'error', attrs: answer.error }]);
      return;
    }
    if (!answer) {
      this.unknown.push(iq);
      this.log(`unknown iq answered with an empty result: ${binaryNodeToString(iq)}`);
    }
    reply({ type: 'result' }, answer?.content);
  }

  /**
   * Code pairing, the two `link_code_companion_reg` stages the companion sends. The answer to the
   * hello names the pairing's ref (whatsmeow needs it; Baileys reads nothing there).
   */
  private companionRegistration(connection: FakeConnection, iq: BinaryNode): { content?: BinaryNode[] } | null {
    const registration = getBinaryNodeChild(iq, 'link_code_companion_reg');
    if (!registration) return null;
    const number = jidDecode(registration.attrs.jid)?.user ?? '';
    const phone = this.phone(number);
    if (registration.attrs.stage === 'companion_hello') {
      const wrapped = getBinaryNodeChildBuffer(registration, 'link_code_pairing_wrapped_companion_ephemeral_pub');
      if (!wrapped) throw new Error('companion_hello without a wrapped ephemeral key');
      const pairing = new CodePairing(phone.accountKey, Buffer.from(wrapped));
      phone.codePairing = { pairing, connection };
      return {
        content: [
          { tag: 'link_code_companion_reg', attrs: {}, content: [{ tag: 'link_code_pairing_ref', attrs: {}, content: Buffer.from(pairing.ref) }] },
        ],
      };
    } else if (registration.attrs.stage === 'companion_finish' && phone.codePairing) {
      const bundle = getBinaryNodeChildBuffer(registration, 'link_code_pairing_wrapped_key_bundle');
      const identity = getBinaryNodeChildBuffer(registration, 'companion_identity_public');
      if (!bundle || !identity) throw new Error('companion_finish without key bundle or identity');
      const { advSecret } = phone.codePairing.pairing.finish(bundle, identity);
      phone.codePairing = null;
      // After the answer to this query, as the server does.
      setImmediate(() => void this.link(connection, phone, Buffer.from(identity), advSecret).catch((e: unknown) => this.log(String(e))));
    }
    return {};
  }

  private async link(connection: FakeConnection, phone: FakePhone, identityKey: Buffer, advSecret: Uint8Array): Promise<void> {
    const device = (phone.companion?.device ?? 1) + 1;
    const answer = await connection.request(pairSuccess(phone, device, identityKey, advSecret));
    if (answer.attrs.type !== 'result' || !getBinaryNodeChild(answer, 'pair-device-sign')) {
      throw new Error(`the client refused pair-success: ${binaryNodeToString(answer)}`);
    }
    const noiseKey = connection.clientNoiseKey;
    if (!noiseKey) throw new Error('pairing before the handshake finished');
    phone.linked({ device, noiseKey, identityKey });
    for (const ref of connection.refs) this.refs.delete(ref);
    connection.refs = [];
    // A new companion logs in again: the server ends the stream with "restart required".
    connection.endStream('515');
  }
}
