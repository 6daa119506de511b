import { randomBytes } from 'node:crypto';
import { type BinaryNode, decodeBinaryNode, encodeBinaryNode, type KeyPair, type proto } from '@whiskeysockets/baileys';
import { FrameReader, lengthPrefixed, NoiseResponder } from './noise.js';
import type { WebSocketConnection } from './websocket-server.js';

export interface ConnectionHandler {
  /** The handshake is done: a new companion (`devicePairingData`) or a login. */
  onHello(connection: FakeConnection, payload: proto.ClientPayload): void;
  /** A node from the client that is not the answer to one of ours. */
  onNode(connection: FakeConnection, node: BinaryNode): void;
  onClose(connection: FakeConnection): void;
}

/** How long a stream the server ended stays open for the client to close it first. */
const STREAM_END_GRACE_MS = 1_000;

export const newId = () => randomBytes(8).toString('hex').toUpperCase();

/**
 * One client connection: the Noise handshake, then binary nodes both ways. Frames are decoded one
 * at a time, in order, as the server must keep the order the client sent them in.
 */
export class FakeConnection {
  private readonly noise: NoiseResponder;
  private readonly reader = new FrameReader();
  private stage: 'hello' | 'finish' | 'open' = 'hello';
  private queue: Promise<void> = Promise.resolve();
  private readonly waiting = new Map<string, (node: BinaryNode) => void>();
  /** The phone number and device this connection logged in as, once known. */
  phone: string | null = null;
  /** The refs of the QR codes offered to this connection, while it is a new companion. */
  refs: string[] = [];
  /**
   * Set while the server has gone quiet on this connection (`silence`): the socket stays open,
   * what the client sends is read (the Noise counters must keep step) and dropped, nothing is
   * answered or sent, websocket pings included.
   */
  private silent = false;

  constructor(
    private readonly ws: WebSocketConnection,
    staticKey: KeyPair,
    certChain: Uint8Array,
    private readonly handler: ConnectionHandler,
  ) {
    this.noise = new NoiseResponder(staticKey, certChain);
    ws.on('message', (data) => {
      this.queue = this.queue.then(() => this.receive(data)).catch(() => this.ws.destroy());
    });
    ws.on('close', () => handler.onClose(this));
  }

  get isOpen(): boolean {
    return this.ws.isOpen;
  }

  /** The client's long-term noise key: what ties a login to a paired companion. */
  get clientNoiseKey(): Buffer | null {
    return this.noise.clientStatic;
  }

  get isSilent(): boolean {
    return this.silent;
  }

  /** The server stops answering on this connection, keeping it open: a dead peer behind a live socket. */
  silence(): void {
    this.silent = true;
    this.ws.quiet = true;
  }

  /** The server answers again on this connection. */
  resume(): void {
    this.silent = false;
    this.ws.quiet = false;
  }

  send(node: BinaryNode): void {
    if (this.stage !== 'open' || !this.ws.isOpen || this.silent) return;
    this.ws.send(lengthPrefixed(this.noise.encryptFrame(encodeBinaryNode(node))));
  }

  /** Sends a node and resolves with the client's answer (same id). */
  request(node: BinaryNode, timeoutMs = 5_000): Promise<BinaryNode> {
    const id = node.attrs.id ?? newId();
    node.attrs.id = id;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error(`no answer to ${node.tag} ${id}`));
      }, timeoutMs);
      this.waiting.set(id, (answer) => {
        clearTimeout(timer);
        resolve(answer);
      });
      this.send(node);
    });
  }

  /** Ends the stream the way the server does, `<stream:error code=...>`, then closes. */
  endStream(code: string, reason?: BinaryNode): void {
    this.send({ tag: 'stream:error', attrs: { code }, content: reason ? [reason] : undefined });
    // The client closes on its own once it read the error; closing at once can beat the error
    // to the client's handler (whatsmeow then drops the 515 and never logs in again).
    setTimeout(() => this.ws.close(), STREAM_END_GRACE_MS).unref();
  }

  close(): void {
    this.ws.close();
  }

  /** The network going away, without a close frame. */
  drop(): void {
    this.ws.destroy();
  }

  private async receive(data: Buffer): Promise<void> {
    for (const frame of this.reader.push(data)) {
      switch (this.stage) {
        case 'hello':
          this.ws.send(lengthPrefixed(this.noise.serverHello(frame)));
          this.stage = 'finish';
          break;
        case 'finish':
          this.stage = 'open';
          this.handler.onHello(this, this.noise.finish(frame));
          break;
        case 'open': {
          const node = await decodeBinaryNode(this.noise.decryptFrame(frame));
          if (this.silent) break;
          const answered = node.attrs.id ? this.waiting.get(node.attrs.id) : undefined;
          if (answered && (node.tag === 'iq' || node.tag === 'ack')) {
            this.waiting.delete(node.attrs.id!);
            answered(node);
          } else {
            this.handler.onNode(this, node);
          }
        }
      }
    }
  }
}
