import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommandError } from '../../src/command-error.js';
import { resolveFile } from '../../src/media/resolve-file.js';

let server: Server;
let base: string;
const limits = { maxBytes: 1024, timeoutMs: 500 };

beforeAll(async () => {
  server = createServer((request, response) => {
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
      const file = await resolveFile({ mimetype: 'application/octet-stream', filename: 'x.bin', data }, 'file');
      expect(file).toEqual({ mimetype: 'application/octet-stream', filename: 'x.bin', data: bytes });
    }
  });

  it('refuses what is not base64, naming body.<field>.data', async () => {
    for (const data of ['abc!', 'QUFB\nQUFB', 'QQ==QUFB', 'QUFBQ', 'data:image/png;base64,QUFB']) {
      expect(await failure(resolveFile({ mimetype: 'image/png', data }, 'file')), data).toEqual({
        code: 'INVALID',
        details: [{ path: 'body.file.data', reason: 'must be base64' }],
      });
    }
  });
});

describe('resolveFile: download by url', () => {
  it('takes the MIME type and name given, else the Content-Type and the last path segment', async () => {
    const found = await resolveFile({ url: `${base}/files/photo%20one.jpg` }, 'file', limits);
    expect(found).toEqual({ mimetype: 'image/jpeg', filename: 'photo one.jpg', data: Buffer.from('jpeg bytes') });
    const given = await resolveFile({ url: `${base}/files/photo%20one.jpg`, mimetype: 'image/png', filename: 'p.png' }, 'file', limits);
    expect(given).toMatchObject({ mimetype: 'image/png', filename: 'p.png' });
  });

  it('falls back to application/octet-stream when the server sends no usable type', async () => {
    expect((await resolveFile({ url: `${base}/no-type` }, 'file', limits)).mimetype).toBe('application/octet-stream');
    expect((await resolveFile({ url: `${base}/bad-type` }, 'file', limits)).mimetype).toBe('application/octet-stream');
  });

  it('follows redirects', async () => {
    expect((await resolveFile({ url: `${base}/moved` }, 'file', limits)).data).toEqual(Buffer.from('jpeg bytes'));
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
      expect(await failure(resolveFile({ url }, 'preview.image', limits)), url).toEqual({
        code: 'INVALID',
        details: [{ path: 'body.preview.image.url', reason }],
      });
    }
  });
});
