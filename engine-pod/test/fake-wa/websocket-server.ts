import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const OP = { continuation: 0x0, binary: 0x2, close: 0x8, ping: 0x9, pong: 0xa } as const;

/**
 * One accepted websocket (RFC 6455, server side): binary messages in and out, ping and close
 * handled. The engine package has no websocket server dependency, and the fake needs little:
 * no extensions, no text frames.
 */
export class WebSocketConnection extends EventEmitter<{ message: [Buffer]; close: [] }> {
  private buffered: Buffer = Buffer.alloc(0);
  private fragments: Buffer[] = [];
  private closed = false;
  /** Set while the server answers nothing, pings included (`FakeConnection.silence`). */
  quiet = false;

  constructor(private readonly socket: Socket) {
    super();
    socket.setNoDelay(true);
    socket.on('data', (chunk) => this.receive(chunk));
    socket.on('close', () => this.finish());
    socket.on('error', () => this.finish());
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  send(data: Uint8Array): void {
    if (this.closed) return;
    this.socket.write(frame(OP.binary, data));
  }

  /** A clean close: the close frame, then the TCP connection. */
  close(code = 1000): void {
    if (this.closed) return;
    const payload = Buffer.alloc(2);
    payload.writeUInt16BE(code);
    this.socket.end(frame(OP.close, payload));
    this.finish();
  }

  /** The network going away: no close frame. */
  destroy(): void {
    this.socket.destroy();
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.emit('close');
  }

  private receive(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    for (;;) {
      const parsed = parseFrame(this.buffered);
      if (!parsed) return;
      this.buffered = this.buffered.subarray(parsed.length);
      this.handle(parsed.opcode, parsed.fin, parsed.payload);
    }
  }

  private handle(opcode: number, fin: boolean, payload: Buffer): void {
    switch (opcode) {
      case OP.binary:
      case OP.continuation:
        this.fragments.push(payload);
        if (fin) {
          const message = Buffer.concat(this.fragments);
          this.fragments = [];
          this.emit('message', message);
        }
        return;
      case OP.ping:
        if (!this.closed && !this.quiet) this.socket.write(frame(OP.pong, payload));
        return;
      case OP.close:
        this.close(payload.length >= 2 ? payload.readUInt16BE(0) : 1000);
        return;
    }
  }
}

function frame(opcode: number, payload: Uint8Array): Buffer {
  const length = payload.byteLength;
  const head = length < 126 ? 2 : length < 65_536 ? 4 : 10;
  const out = Buffer.allocUnsafe(head + length);
  out[0] = 0x80 | opcode;
  if (length < 126) {
    out[1] = length;
  } else if (length < 65_536) {
    out[1] = 126;
    out.writeUInt16BE(length, 2);
  } else {
    out[1] = 127;
    out.writeBigUInt64BE(BigInt(length), 2);
  }
  out.set(payload, head);
  return out;
}

function parseFrame(data: Buffer): { opcode: number; fin: boolean; payload: Buffer; length: number } | null {
  if (data.length < 2) return null;
  const fin = (data[0]! & 0x80) !== 0;
  const opcode = data[0]! & 0x0f;
  const masked = (data[1]! & 0x80) !== 0;
  let length = data[1]! & 0x7f;
  let offset = 2;
  if (length === 126) {
    if (data.length < 4) return null;
    length = data.readUInt16BE(2);
    offset = 4;
  } else if (length === 127) {
    if (data.length < 10) return null;
    length = Number(data.readBigUInt64BE(2));
    offset = 10;
  }
  const maskAt = offset;
  if (masked) offset += 4;
  if (data.length < offset + length) return null;
  const payload = Buffer.from(data.subarray(offset, offset + length));
  if (masked) {
    for (let i = 0; i < payload.length; i++) payload[i]! ^= data[maskAt + (i % 4)]!;
  }
  return { opcode, fin, payload, length: offset + length };
}

/** An HTTP server that upgrades every request to a websocket. */
export class WebSocketServer {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();

  constructor(onConnection: (connection: WebSocketConnection, request: IncomingMessage) => void) {
    this.server = createServer((_req, res) => res.writeHead(426).end());
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    this.server.on('upgrade', (request, socket: Socket) => {
      const key = request.headers['sec-websocket-key'];
      if (typeof key !== 'string') {
        socket.destroy();
        return;
      }
      const accept = createHash('sha1')
        .update(key + GUID)
        .digest('base64');
      socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' + `Sec-WebSocket-Accept: ${accept}\r\n\r\n`);
      onConnection(new WebSocketConnection(socket), request);
    });
  }

  listen(port = 0, host = '127.0.0.1'): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => resolve((this.server.address() as AddressInfo).port));
    });
  }

  close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
