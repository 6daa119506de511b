import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sample, waitFor } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startGateway, type TestGateway, workingSession } from './support/gateway.js';

/**
 * The media conversion queue (issue 26): a local gateway converting at most one file at a time,
 * with one more waiting and one per key. A conversion's place covers the download of its file
 * by url, so a file server that holds its answers holds the conversions: the test decides when
 * each one may go on, and nothing here depends on how fast ffmpeg is.
 */
let gw: TestGateway;
let dir: string;
let mp3: Buffer;
let files: Server;
let filesUrl: string;
/** Requests to /hold/<name> that the file server has not answered yet. */
const held = new Map<string, ServerResponse>();
const S = 'queue';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sb-queue-test-'));
  execFileSync('ffmpeg', [
    '-nostdin',
    '-hide_banner',
    '-loglevel',
    'error',
    '-f',
    'lavfi',
    '-i',
    'sine=duration=0.5',
    '-c:a',
    'libmp3lame',
    join(dir, 'tone.mp3'),
  ]);
  mp3 = readFileSync(join(dir, 'tone.mp3'));
  files = createServer((request, response) => {
    const name = request.url?.match(/^\/hold\/(\w+)$/)?.[1];
    if (name) held.set(name, response);
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
  filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
  gw = await startGateway({ conversions: { running: 1, waiting: 1, perKey: 1 } });
  await workingSession(gw, S, { engine: 'SANDBOX' });
}, 60_000);
afterAll(async () => {
  for (const response of held.values()) response.destroy();
  await gw?.close();
  await new Promise((resolve) => files?.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

function convert(body: unknown, key = ADMIN_KEY): Promise<Response> {
  return fetch(`${gw.url}/api/${S}/media/convert/voice`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  });
}

const byUrl = (name: string) => ({ url: `${filesUrl}/hold/${name}` });
const byData = () => ({ data: mp3.toString('base64') });

/** The file server has the download of conversion `name`: that conversion is running. */
const running = (name: string) => waitFor(() => held.has(name), `conversion ${name} running (its download arrived)`);

async function waiting(count: number): Promise<void> {
  await waitFor(async () => {
    const text = await (await fetch(`${gw.url}/metrics`, { headers: { 'x-api-key': ADMIN_KEY } })).text();
    return sample(text, 'switchboard_media_conversions_waiting') === count;
  }, `${count} conversion(s) waiting`);
}

function release(name: string): void {
  held.get(name)!.writeHead(200, { 'content-type': 'audio/mpeg' }).end(mp3);
  held.delete(name);
}

async function key(): Promise<string> {
  const made = await gw.api('POST', '/api/keys', { session: S });
  expect(made.status).toBe(201);
  return made.body.key;
}

describe('media conversions: running, waiting and per key (SWITCHBOARD_CONVERSIONS_*)', () => {
  it('answers 429 with Retry-After beyond the queue, naming the bound; takes conversions again once it has room', async () => {
    const first = convert(byUrl('a'));
    await running('a');
    const second = convert(byUrl('b'));
    await waiting(1);

    const refused = await convert(byData());
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    const body = (await refused.json()) as { message: string; details: unknown };
    expect(body).toMatchObject({ statusCode: 429, error: 'Too Many Requests', details: { limit: 'queue', running: 1, waiting: 1 } });
    expect(body.message).toContain('SWITCHBOARD_CONVERSIONS_WAITING=1');

    release('a');
    await running('b');
    release('b');
    expect((await first).status).toBe(200);
    expect((await second).status).toBe(200);
    const after = await convert(byData());
    expect(after.status).toBe(200);
    expect(((await after.json()) as { mimetype: string }).mimetype).toBe('audio/ogg; codecs=opus');
  });

  it('lets one key have only its share; another key’s conversion is taken meanwhile; the admin key has no share', async () => {
    const [one, two] = [await key(), await key()];
    const mine = convert(byUrl('c'), one);
    await running('c');

    const refused = await convert(byData(), one);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    const body = (await refused.json()) as { message: string; details: unknown };
    expect(body.details).toEqual({ limit: 'perKey', perKey: 1 });
    expect(body.message).toContain('SWITCHBOARD_CONVERSIONS_PER_KEY=1');

    const theirs = convert(byUrl('d'), two);
    await waiting(1);
    release('c');
    await running('d');
    release('d');
    expect((await mine).status).toBe(200);
    expect((await theirs).status).toBe(200);

    // The admin key is not counted per key: only the queue bounds it.
    const admin = convert(byUrl('e'));
    await running('e');
    const adminAgain = convert(byData());
    await waiting(1);
    release('e');
    expect((await admin).status).toBe(200);
    expect((await adminAgain).status).toBe(200);
  });
});
