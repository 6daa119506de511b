import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, type ContractGateway, startGateway, workingSession } from './harness.js';

/**
 * Media conversion with Debian's ffmpeg (issue 16; scripts/ensure-ffmpeg.sh installs it): the
 * inputs are made by ffmpeg itself (a second of a tone as MP3, a second of a test picture with a
 * tone as AVI), converted through the API, and what comes back is read by ffprobe.
 */
let gw: ContractGateway;
let dir: string;
let mp3: Buffer;
let avi: Buffer;
let files: Server;
let filesUrl: string;
/** Every path the file server was asked for. */
const requested: string[] = [];
const S = 'convert';

function ffmpeg(...args: string[]): void {
  execFileSync('ffmpeg', ['-nostdin', '-hide_banner', '-loglevel', 'error', ...args]);
}

function writeProbe(bytes: Buffer): string {
  const path = join(dir, `probe-${Math.random().toString(36).slice(2)}`);
  writeFileSync(path, bytes);
  return path;
}

/** What ffprobe says of a file: its streams' codec names and its container. */
function probe(bytes: Buffer): { codecs: string[]; format: string } {
  const path = writeProbe(bytes);
  const out = JSON.parse(
    execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'stream=codec_name:format=format_name', '-of', 'json', path], { encoding: 'utf8' }),
  );
  return { codecs: out.streams.map((stream: { codec_name: string }) => stream.codec_name), format: out.format.format_name };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sb-convert-test-'));
  ffmpeg('-f', 'lavfi', '-i', 'sine=frequency=440:duration=1', '-c:a', 'libmp3lame', join(dir, 'tone.mp3'));
  ffmpeg(
    '-f',
    'lavfi',
    '-i',
    'testsrc=size=161x121:rate=10:duration=1',
    '-f',
    'lavfi',
    '-i',
    'sine=duration=1',
    '-c:v',
    'mpeg4',
    '-c:a',
    'pcm_s16le',
    join(dir, 'clip.avi'),
  );
  mp3 = readFileSync(join(dir, 'tone.mp3'));
  avi = readFileSync(join(dir, 'clip.avi'));
  files = createServer((request, response) => {
    requested.push(request.url ?? '');
    if (request.url === '/tone.mp3') response.writeHead(200, { 'content-type': 'audio/mpeg' }).end(mp3);
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
  filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
  gw = await startGateway();
  await workingSession(gw, S, { engine: 'SANDBOX' });
}, 60_000);
afterAll(async () => {
  await gw?.close();
  await new Promise((resolve) => files?.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

async function convert(target: 'voice' | 'video', body: unknown, accept?: string) {
  const res = await fetch(`${gw.url}/api/${S}/media/convert/${target}`, {
    method: 'POST',
    headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json', ...(accept ? { accept } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
}

describe('POST /api/{session}/media/convert/voice and /video', () => {
  it('voice: MP3 by base64 becomes an OGG/Opus voice note', async () => {
    const res = await convert('voice', { data: mp3.toString('base64') });
    expect(res.status).toBe(200);
    expect(res.type).toBe('audio/ogg; codecs=opus');
    expect(probe(res.bytes)).toEqual({ codecs: ['opus'], format: 'ogg' });
  });

  it('voice: by url (fetched through the outbound policy); as {mimetype, data} to a client that accepts JSON', async () => {
    const res = await convert('voice', { url: `${filesUrl}/tone.mp3`, data: null }, 'application/json');
    expect(res.status).toBe(200);
    const body = JSON.parse(res.bytes.toString());
    expect(body.mimetype).toBe('audio/ogg; codecs=opus');
    expect(probe(Buffer.from(body.data, 'base64')).codecs).toEqual(['opus']);
  });

  it('video: an MPEG-4 Part 2 AVI with odd dimensions becomes an MP4 of H.264 and AAC', async () => {
    const res = await convert('video', { data: avi.toString('base64') });
    expect(res.status).toBe(200);
    expect(res.type).toBe('video/mp4');
    const probed = probe(res.bytes);
    expect(probed.codecs.sort()).toEqual(['aac', 'h264']);
    expect(probed.format).toContain('mp4');
  });

  it('refuses what it cannot convert with a 400 naming the field: no file, both, not base64, not media, a URL that fails', async () => {
    const none = await convert('voice', {});
    expect(none.status).toBe(400);
    expect(none.bytes.toString()).toContain('url');
    expect((await convert('voice', { url: `${filesUrl}/tone.mp3`, data: 'aGk=' })).status).toBe(400);
    expect((await convert('voice', { data: 'not base64!' })).status).toBe(400);
    const junk = await convert('video', { data: Buffer.from('no video in here').toString('base64') });
    expect(junk.status).toBe(400);
    expect(JSON.parse(junk.bytes.toString()).details).toEqual([{ path: 'body.data', reason: expect.stringMatching(/^could not be converted/) }]);
    // ffmpeg names its input by the temporary path, which says nothing to the client.
    expect(junk.bytes.toString()).not.toContain('sb-convert-');
    const missing = await convert('voice', { url: `${filesUrl}/missing.mp3` });
    expect(missing.status).toBe(400);
    expect(JSON.parse(missing.bytes.toString()).details[0].path).toBe('body.url');
  });

  it('answers 404 for a session that does not exist', async () => {
    expect((await convert('voice', { data: mp3.toString('base64') })).status).toBe(200);
    const res = await fetch(`${gw.url}/api/nobody/media/convert/voice`, {
      method: 'POST',
      headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ data: mp3.toString('base64') }),
    });
    expect(res.status).toBe(404);
  });
});

describe('what ffmpeg reads: the file given, and nothing it names (issue 26)', () => {
  const playlist = (segment: string) => `#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\n${segment}\n#EXT-X-ENDLIST\n`;

  it('refuses an HLS playlist or a concat script that names a file of this machine or a URL, and fetches nothing', async () => {
    // A file of this machine that ffmpeg reads well: read through a playlist, it would come back converted.
    const local = join(dir, 'tone.mp3');
    const inputs = [
      playlist(`file://${local}`),
      playlist(local),
      playlist(`${filesUrl}/hls-segment.mp3`),
      `ffconcat version 1.0\nfile ${local}\n`,
      `ffconcat version 1.0\nfile ${filesUrl}/concat-part.mp3\n`,
      'ffconcat version 1.0\nfile file:///etc/passwd\n',
    ];
    const before = requested.length;
    for (const input of inputs) {
      const res = await convert('voice', { data: Buffer.from(input).toString('base64') });
      expect(res.status, input).toBe(400);
      const details = JSON.parse(res.bytes.toString()).details;
      expect(details, input).toEqual([
        { path: 'body.data', reason: expect.stringContaining('playlists and scripts that name other files are not read') },
      ]);
    }
    expect(requested.slice(before)).toEqual([]);
  });

  it('reads the containers phones and browsers record: MP4 (with AAC) and WebM (with Opus)', async () => {
    for (const [name, codec] of [
      ['clip.m4a', 'aac'],
      ['clip.webm', 'libopus'],
    ] as const) {
      ffmpeg('-f', 'lavfi', '-i', 'sine=duration=0.5', '-c:a', codec, '-y', join(dir, name));
      const res = await convert('voice', { data: readFileSync(join(dir, name)).toString('base64') });
      expect(res.status, name).toBe(200);
      expect(probe(res.bytes).codecs).toEqual(['opus']);
    }
  });

  it('scales a video larger than 1920 pixels down to 1920 on its longer side, and refuses one larger than 4096x2160 saying so', async () => {
    const clip = (size: string, name: string) => {
      ffmpeg('-f', 'lavfi', '-i', `testsrc=size=${size}:rate=5:duration=0.4`, '-c:v', 'mpeg4', '-y', join(dir, name));
      return readFileSync(join(dir, name)).toString('base64');
    };
    const portrait = await convert('video', { data: clip('1080x2400', 'tall.avi') });
    expect(portrait.status).toBe(200);
    const sizes = JSON.parse(
      execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'stream=width,height', '-of', 'json', writeProbe(portrait.bytes)], {
        encoding: 'utf8',
      }),
    ).streams[0];
    expect(sizes).toEqual({ width: 864, height: 1920 });
    const huge = await convert('video', { data: clip('4800x2400', 'huge.avi') });
    expect(huge.status).toBe(400);
    expect(JSON.parse(huge.bytes.toString()).details[0].reason).toContain('larger than 8847360 pixels (4096x2160)');
  });
});

describe('statuses with convert: true', () => {
  it('a voice status of MP3 is posted as OGG/Opus; a video status of AVI as MP4', async () => {
    const voice = await gw.api('POST', `/api/${S}/status/voice`, { file: { mimetype: 'audio/mpeg', url: `${filesUrl}/tone.mp3` }, convert: true });
    expect(voice.status).toBe(201);
    expect(voice.body.media.mimetype).toBe('audio/ogg; codecs=opus');
    const stored = await fetch(gw.url + new URL(voice.body.media.url).pathname, { headers: { 'x-api-key': ADMIN_KEY } });
    expect(probe(Buffer.from(await stored.arrayBuffer())).codecs).toEqual(['opus']);

    const video = await gw.api('POST', `/api/${S}/status/video`, {
      file: { mimetype: 'video/x-msvideo', data: avi.toString('base64') },
      convert: true,
    });
    expect(video.status).toBe(201);
    expect(video.body.media.mimetype).toBe('video/mp4');
    // Without convert the file goes as it is.
    const asIs = await gw.api('POST', `/api/${S}/status/voice`, { file: { mimetype: 'audio/mpeg', data: mp3.toString('base64') } });
    expect(asIs.body.media.mimetype).toBe('audio/mpeg');
  });
});

describe('GET /api/screenshot', () => {
  it('is a 422 naming the engine on an engine without a browser page (SANDBOX); 404 for a session that does not exist', async () => {
    const res = await gw.api('GET', `/api/screenshot?session=${S}`);
    expect(res.status).toBe(422);
    expect(res.body.message).toContain('SANDBOX');
    expect(res.body.message).toContain('screenshots');
    expect((await gw.api('GET', '/api/screenshot?session=nobody')).status).toBe(404);
  });

  it('is using the account, not controlling the session: a control key is refused, a key that may read is let through', async () => {
    const control = (await gw.api('POST', '/api/keys/control', { session: S })).body.key;
    const refused = await gw.api('GET', `/api/screenshot?session=${S}`, undefined, control);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain('control key');
    const reader = (await gw.api('POST', '/api/keys', { session: S, actions: { read: true } })).body.key;
    // Past the key check: the SANDBOX engine's own 422.
    expect((await gw.api('GET', `/api/screenshot?session=${S}`, undefined, reader)).status).toBe(422);
  });
});
