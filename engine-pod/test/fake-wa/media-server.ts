import { execFileSync } from 'node:child_process';
import { createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { readFile, unlink } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import { type BinaryNode, encryptedStream, getMediaKeys, type MediaType } from '@whiskeysockets/baileys';

/** What a media message carries to find and decrypt its file (the fields of `imageMessage` & co). */
export interface UploadedMedia {
  readonly directPath: string;
  readonly url: string;
  readonly mediaKey: Uint8Array;
  readonly fileSha256: Uint8Array;
  readonly fileEncSha256: Uint8Array;
  readonly fileLength: number;
}

/**
 * WhatsApp's media server (`mmg.whatsapp.net`) for the NOWEB engine under test: files encrypted
 * as the service encrypts them (Baileys' own `encryptedStream`: AES-256-CBC, then 10 bytes of
 * HMAC), served over HTTPS at their direct path. Baileys always downloads over https from the
 * host it is given, so the server has a self-signed certificate (made by openssl) that this
 * process is told to trust. Point the engine's `mediaHost` option at `host`.
 */
export class FakeMediaServer {
  /** Requests served: direct path and status. */
  readonly requests: { path: string; status: number }[] = [];
  /** Files clients uploaded (`POST /mms/<type>/<hash>`): where they went and their encrypted size. */
  readonly uploads: { path: string; directPath: string; size: number }[] = [];
  private readonly files = new Map<string, Buffer>();
  /** Bytes of each file (by direct path) written to clients: a client that stops reading stops them. */
  readonly sent = new Map<string, number>();
  /** The upload token `media_conn` hands out; an upload without it is refused, as the server does. */
  private readonly auth = randomBytes(16).toString('base64url');

  private constructor(
    private readonly server: Server,
    readonly host: string,
    /** The server's self-signed certificate (PEM): what a client in another process must trust (GOWS: `SWITCHBOARD_GOWS_MEDIA_CA`). */
    readonly certificate: string,
  ) {}

  static async start(): Promise<FakeMediaServer> {
    const dir = mkdtempSync(join(tmpdir(), 'fake-wa-media-'));
    try {
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:P-256',
          '-nodes',
          '-days',
          '1',
          '-keyout',
          join(dir, 'key.pem'),
          '-out',
          join(dir, 'cert.pem'),
          '-subj',
          '/CN=127.0.0.1',
          '-addext',
          'subjectAltName=IP:127.0.0.1',
        ],
        { stdio: 'ignore' },
      );
      const cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
      const key = readFileSync(join(dir, 'key.pem'), 'utf8');
      setDefaultCACertificates([...getCACertificates('default'), cert]);
      // eslint-disable-next-line prefer-const -- the handler above the assignment reads it
      let self: FakeMediaServer | undefined;
      const server = createServer({ key, cert }, (request, response) => {
        if (request.method === 'POST') return void self?.receive(request, response);
        // whatsmeow downloads by direct path with `&hash=...` appended, as the service's own direct paths carry a query.
        const path = (request.url ?? '').split(/[?&]/)[0]!;
        const file = self?.files.get(path);
        self?.requests.push({ path, status: file ? 200 : 404 });
        if (!file) return response.writeHead(404).end();
        response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': file.length });
        void self?.serve(path, file, response);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      self = new FakeMediaServer(server, `127.0.0.1:${(server.address() as AddressInfo).port}`, cert);
      return self;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  /** Encrypts `data` for a `type` message and serves it; the answer goes into the message. */
  async upload(data: Buffer, type: MediaType): Promise<UploadedMedia> {
    const encrypted = await encryptedStream(data, type);
    const bytes = await readFile(encrypted.encFilePath);
    await unlink(encrypted.encFilePath);
    const directPath = `/v/t62.7118-24/${randomBytes(8).toString('hex')}.enc`;
    this.files.set(directPath, bytes);
    return {
      directPath,
      url: `https://${this.host}${directPath}`,
      mediaKey: encrypted.mediaKey,
      fileSha256: encrypted.fileSha256,
      fileEncSha256: encrypted.fileEncSha256,
      fileLength: encrypted.fileLength,
    };
  }

  /**
   * A channel (newsletter) post's file: channel files are kept unencrypted, served as they are at a
   * direct path; the post's part carries the path, the url, the file's sha256 and length, no mediaKey.
   */
  servePlain(data: Buffer): { readonly directPath: string; readonly url: string; readonly fileSha256: Uint8Array; readonly fileLength: number } {
    const directPath = `/v/t62.7119-24/${randomBytes(8).toString('hex')}.jpg`;
    this.files.set(directPath, data);
    return { directPath, url: `https://${this.host}${directPath}`, fileSha256: createHash('sha256').update(data).digest(), fileLength: data.length };
  }

  /** The answer to a client's `media_conn` query: this host, and the token uploads must carry. */
  mediaConn(): BinaryNode {
    return {
      tag: 'media_conn',
      attrs: { auth: this.auth, ttl: '300', auth_ttl: '300', max_buckets: '12' },
      content: [{ tag: 'host', attrs: { hostname: this.host, maxContentLengthBytes: String(100 * 1024 * 1024) } }],
    };
  }

  /**
   * What a contact's phone does with a media message the client sent: fetch the file at its
   * direct path, check its hashes and MAC, decrypt it. Throws when any of it does not hold.
   */
  async open(
    part: { directPath?: string | null; mediaKey?: Uint8Array | null; fileEncSha256?: Uint8Array | null; fileSha256?: Uint8Array | null },
    type: MediaType,
  ): Promise<Buffer> {
    const encrypted = part.directPath ? this.files.get(part.directPath) : undefined;
    if (!encrypted || !part.mediaKey) throw new Error(`no uploaded file at ${part.directPath}`);
    const sha256 = (data: Buffer) => createHash('sha256').update(data).digest();
    if (!part.fileEncSha256 || !sha256(encrypted).equals(Buffer.from(part.fileEncSha256))) throw new Error('fileEncSha256 does not match the upload');
    const { iv, cipherKey, macKey } = await getMediaKeys(part.mediaKey, type);
    if (!macKey) throw new Error(`no MAC key for ${type}`);
    const body = encrypted.subarray(0, -10);
    const mac = createHmac('sha256', macKey).update(iv).update(body).digest().subarray(0, 10);
    if (!timingSafeEqual(mac, encrypted.subarray(-10))) throw new Error('the media MAC does not match: wrong media key or type');
    const decipher = createDecipheriv('aes-256-cbc', cipherKey, iv);
    const plain = Buffer.concat([decipher.update(body), decipher.final()]);
    if (!part.fileSha256 || !sha256(plain).equals(Buffer.from(part.fileSha256))) throw new Error('fileSha256 does not match the decrypted file');
    return plain;
  }

  /**
   * An upload, as the client makes it: `POST /mms/<type>/<fileEncSha256, base64url>?auth=&token=`.
   * Kept at a direct path of its own (and served from there), answered with `url` and
   * `direct_path` in JSON; a wrong token or hash is a 401 or 400 without them.
   */
  private receive(request: IncomingMessage, response: ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', `https://${this.host}`);
      const body = Buffer.concat(chunks);
      const hash = createHash('sha256').update(body).digest('base64url');
      const json = (status: number, value: object) => {
        this.requests.push({ path: url.pathname, status });
        response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      };
      if (url.searchParams.get('auth') !== this.auth) return json(401, { status: 'unauthorized' });
      // The hash in base64url, padded (whatsmeow) or not (Baileys).
      const named = decodeURIComponent(url.pathname.split('/').at(-1) ?? '').replace(/=+$/, '');
      if (!url.pathname.startsWith('/mms/') || named !== hash) return json(400, { status: 'bad hash' });
      const directPath = `/v/t62.7118-24/${randomBytes(8).toString('hex')}.enc`;
      this.files.set(directPath, body);
      this.uploads.push({ path: url.pathname, directPath, size: body.length });
      json(200, { url: `https://${this.host}${directPath}`, direct_path: directPath });
    });
  }

  /**
   * A file in 64 KiB writes, each when the client has taken the last (backpressure), so what is
   * counted in `sent` is what the client read, give or take the sockets' buffers; a client that
   * goes away ends it.
   */
  private async serve(path: string, file: Buffer, response: ServerResponse): Promise<void> {
    const closed = new Promise<void>((resolve) => response.once('close', resolve));
    for (let offset = 0; offset < file.length && !response.destroyed; offset += 64 * 1024) {
      const chunk = file.subarray(offset, offset + 64 * 1024);
      this.sent.set(path, (this.sent.get(path) ?? 0) + chunk.length);
      if (!response.write(chunk)) await Promise.race([new Promise((resolve) => response.once('drain', resolve)), closed]);
    }
    response.end();
  }

  /**
   * A file of `size` bytes that names `declared` as its length in the message (a sender may lie):
   * what a client downloads of it tells whether it stopped at its limit.
   */
  async uploadSized(size: number, type: MediaType, declared = size): Promise<UploadedMedia> {
    return { ...(await this.upload(randomBytes(size), type)), fileLength: declared };
  }

  /** The file is gone from the server (as after its 30 days on WhatsApp's). */
  forget(directPath: string): void {
    this.files.delete(directPath);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
