import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OutboundPolicy } from '@switchboard/kube';
import { freePort } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommandError } from '../../src/command-error.js';
import { resolveFile } from '../../src/media/resolve-file.js';
import { guardedAgent } from '../../src/outbound/guarded-agent.js';

let server: Server;
let base: string;
const limits = { maxBytes: 1024, timeoutMs: 500 };
/** The built-in rules only: loopback is allowed, as in local mode's default. */
const downloads = guardedAgent(new OutboundPolicy());

beforeAll(async () => {
  server = createServer((request, response) => {
    // eslint-disable-next-line @typescript-eslint/switch-exhaustiveness-check -- any other path (a string, or none) falls to the default
    switch (request.url) {
      case '/files/photo%20one.jpg':
        return response.writeHead(200, { 'content-type': 'image/jpeg' }).end(Buffer.from('jpeg bytes'));
      case '/no-type':
        return response.writeHead(200).end('?');
      case '/bad-type':
        return response.writeHead(200, { 'content-type': 'not a type' }).end('?');
      case '/moved':
        return response.writeHead(302, { location: '/files/photo%20one.jpg' }).end();
      case '/big-declared':
        return response.writeHead(200, { 'content-length': '4096' }).end(Buffer.alloc(4096));
      case '/big-streamed':
        // Chunked, no length: the limit must hold while reading.
        response.writeHead(200);
        for (let i = 0; i < 8; i++) response.write(Buffer.alloc(512));
        return response.end();
      case '/slow':
        return setTimeout(() => response.writeHead(200).end('late'), 2_000).unref();
      default:
        return response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** The 400 a failed resolution gives: `[{path, reason}]`, as the gateway's own 400s. */
async function failure(promise: Promise<unknown>): Promise<{ code: string; details: unknown }> {
  const error = await promise.then(
    () => expect.unreachable('resolved'),
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(CommandError);
  return { code: (error as CommandError).code, details: (error as CommandError).details };
}

describe('resolveFile: base64 data', () => {
  it('decodes standard and URL-safe base64, padded or not', async () => {
    const bytes = Buffer.from([0xfb, 0xff, 0xbf, 0x01]);
    for (const data of [bytes.toString('base64'), bytes.toString('base64url')]) {
      const file = await resolveFile({ mimetype: 'application/octet-stream', filename: 'x.bin', data }, 'file', downloads);
      expect(file).toEqual({ mimetype: 'application/octet-stream', filename: 'x.bin', data: bytes });
    }
  });

  it('refuses what is not base64, naming body.<field>.data', async () => {
    for (const data of ['abc!', 'QUFB\nQUFB', 'QQ==QUFB', 'QUFBQ', 'data:image/png;base64,QUFB']) {
      expect(await failure(resolveFile({ mimetype: 'image/png', data }, 'file', downloads)), data).toEqual({
        code: 'INVALID',
        details: [{ path: 'body.file.data', reason: 'must be base64' }],
      });
    }
  });
});

describe('resolveFile: download by url', () => {
  it('takes the MIME type and name given, else the Content-Type and the last path segment', async () => {
    const found = await resolveFile({ url: `${base}/files/photo%20one.jpg` }, 'file', downloads, limits);
    expect(found).toEqual({ mimetype: 'image/jpeg', filename: 'photo one.jpg', data: Buffer.from('jpeg bytes') });
    const given = await resolveFile({ url: `${base}/files/photo%20one.jpg`, mimetype: 'image/png', filename: 'p.png' }, 'file', downloads, limits);
    expect(given).toMatchObject({ mimetype: 'image/png', filename: 'p.png' });
  });

  it('falls back to application/octet-stream when the server sends no usable type', async () => {
    expect((await resolveFile({ url: `${base}/no-type` }, 'file', downloads, limits)).mimetype).toBe('application/octet-stream');
    expect((await resolveFile({ url: `${base}/bad-type` }, 'file', downloads, limits)).mimetype).toBe('application/octet-stream');
  });

  it('follows redirects', async () => {
    expect((await resolveFile({ url: `${base}/moved` }, 'file', downloads, limits)).data).toEqual(Buffer.from('jpeg bytes'));
  });

  it('names body.<field>.url and the reason when the download fails', async () => {
    const reasons = {
      [`${base}/missing`]: 'could not be downloaded: the server answered 404',
      [`${base}/big-declared`]: 'could not be downloaded: it is larger than 1024 bytes',
      [`${base}/big-streamed`]: 'could not be downloaded: it is larger than 1024 bytes',
      [`${base}/slow`]: 'could not be downloaded: no complete answer within 500 ms',
      [`http://127.0.0.1:${await freePort()}/x`]: 'could not be downloaded: ECONNREFUSED',
      'ftp://example.com/x': 'must be an http or https URL',
    };
    for (const [url, reason] of Object.entries(reasons)) {
      expect(await failure(resolveFile({ url }, 'preview.image', downloads, limits)), url).toEqual({
        code: 'INVALID',
        details: [{ path: 'body.preview.image.url', reason }],
      });
    }
  });
});

describe('resolveFile: the outbound address policy holds for the URL and every redirect', () => {
  // Tests only ever reach loopback: 127.0.0.2 plays the allowed receiver, 127.0.0.1 the inside.
  const policy = new OutboundPolicy({ deny: '127.0.0.0/8,::1', allow: '127.0.0.2' });
  const guarded = guardedAgent(policy);
  let inside: Server;
  let insideConnections = 0;
  let receiver: Server;
  let receiverBase: string;

  beforeAll(async () => {
    inside = createServer((_request, response) => response.writeHead(200).end('secret'));
    inside.on('connection', () => insideConnections++);
    await new Promise<void>((resolve) => inside.listen(0, '127.0.0.1', resolve));
    const insidePort = (inside.address() as AddressInfo).port;
    receiver = createServer((request, response) => {
      const to: Record<string, string> = {
        '/to-address': `http://127.0.0.1:${insidePort}/`,
        '/to-name': `http://localhost:${insidePort}/`,
        '/to-metadata': 'http://169.254.169.254/latest/meta-data/',
      };
      const location = to[request.url ?? ''];
      if (location) response.writeHead(302, { location }).end();
      else response.writeHead(200, { 'content-type': 'image/png' }).end('png');
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.2', resolve));
    receiverBase = `http://127.0.0.2:${(receiver.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const s of [inside, receiver]) {
      s.closeAllConnections();
      await new Promise((resolve) => s.close(resolve));
    }
    await guarded.close();
  });

  it('downloads from an allowed receiver', async () => {
    expect((await resolveFile({ url: `${receiverBase}/file.png` }, 'file', guarded, limits)).data).toEqual(Buffer.from('png'));
  });

  it('refuses a redirect to a denied address, by address or by a name that resolves to one, without connecting', async () => {
    const insidePort = (inside.address() as AddressInfo).port;
    const refused = (target: string) =>
      `could not be downloaded: ${target} is denied by the outbound address policy (rule 127.0.0.0/8, SWITCHBOARD_OUTBOUND_DENY; SWITCHBOARD_OUTBOUND_ALLOW can allow it)`;
    expect(await failure(resolveFile({ url: `${receiverBase}/to-address` }, 'file', guarded, limits))).toEqual({
      code: 'INVALID',
      details: [{ path: 'body.file.url', reason: refused('127.0.0.1') }],
    });
    expect(await failure(resolveFile({ url: `${receiverBase}/to-name` }, 'file', guarded, limits))).toEqual({
      code: 'INVALID',
      details: [{ path: 'body.file.url', reason: refused('127.0.0.1') }],
    });
    // Asked directly, the same: the URL's own host is held to the policy too.
    expect(await failure(resolveFile({ url: `http://localhost:${insidePort}/` }, 'file', guarded, limits))).toMatchObject({
      details: [{ reason: refused('127.0.0.1') }],
    });
    expect(insideConnections).toBe(0);
  });

  it('refuses the metadata address before connecting, by a redirect or given literally', async () => {
    const metadata = (target: string) =>
      `could not be downloaded: ${target} is denied by the outbound address policy (rule 169.254.0.0/16, a built-in rule; SWITCHBOARD_OUTBOUND_ALLOW can allow it)`;
    const targets = {
      [`${receiverBase}/to-metadata`]: '169.254.169.254',
      'http://169.254.169.254/latest/meta-data/': '169.254.169.254',
      'http://[::ffff:169.254.169.254]/': '::ffff:a9fe:a9fe',
    };
    for (const [url, target] of Object.entries(targets)) {
      const started = Date.now();
      expect(await failure(resolveFile({ url }, 'file', guarded, limits)), url).toEqual({
        code: 'INVALID',
        details: [{ path: 'body.file.url', reason: metadata(target) }],
      });
      // Refused by the policy, not by a connect attempt that failed or timed out.
      expect(Date.now() - started).toBeLessThan(limits.timeoutMs);
    }
  });
});
