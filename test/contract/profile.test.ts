import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor, WsClient } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, restarted, startGateway, type ContractGateway, waitForStatus, workingSession } from './harness.js';

let gw: ContractGateway;
/** A web server the engine downloads pictures from, as it would from any URL a client gives. */
let pictures: Server;
let picturesUrl: string;

// A 1x1 PNG and a 1x1 GIF: real images, small enough to send inline.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

beforeAll(async () => {
  gw = await startGateway();
  pictures = createServer((request, response) => {
    if (request.url === '/me.gif') response.writeHead(200, { 'content-type': 'image/gif' }).end(GIF);
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => pictures.listen(0, '127.0.0.1', resolve));
  picturesUrl = `http://127.0.0.1:${(pictures.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await gw.close();
  await new Promise((resolve) => pictures.close(resolve));
});

const ME = { id: '4915112345678@c.us', pushName: 'Ada' };
const profileOf = async (name: string) => (await gw.api('GET', `/api/${name}/profile`)).body;

/**
 * The bytes at a `picture` address, fetched as a client would, with its key. The address's origin
 * is the deployment's base URL (SWITCHBOARD_BASE_URL), which the engine pods of the cluster test
 * environment do not know per gateway: its path is fetched from this test's gateway.
 */
async function download(url: string): Promise<{ type: string | null; bytes: Buffer }> {
  const res = await fetch(gw.url + new URL(url).pathname, { headers: { 'x-api-key': ADMIN_KEY } });
  expect(res.status, url).toBe(200);
  return { type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
}

describe('4.4 profile: GET /api/{session}/profile', () => {
  it('answers MyProfile {id, name, picture} of the paired account; picture is null until one is set', async () => {
    await gw.api('POST', '/api/sessions', { name: 'prof-get', engine: 'SANDBOX' });
    await waitForStatus(gw, 'prof-get', 'SCAN_QR_CODE');
    await gw.api('POST', '/api/prof-get/sandbox/simulate', { kind: 'scan', me: ME });
    await waitForStatus(gw, 'prof-get', 'WORKING');
    const res = await gw.api('GET', '/api/prof-get/profile');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: ME.id, name: ME.pushName, picture: null });
  });
});

describe('4.4 profile: name and status', () => {
  beforeAll(async () => {
    await workingSession(gw, 'prof-name', { engine: 'SANDBOX' });
  });

  it('PUT name answers 200 {success: true}; the profile and the account (me of events) carry the new name', async () => {
    const ws = await WsClient.connect(gw.url, `x-api-key=${ADMIN_KEY}&session=prof-name&events=message.any`);
    const res = await gw.api('PUT', '/api/prof-name/profile/name', { name: 'Grace Hopper' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect((await profileOf('prof-name')).name).toBe('Grace Hopper');
    // The account at once, in both modes (cluster mode asks the engine pod, not the resource's status).
    expect((await gw.api('GET', '/api/sessions/prof-name/me')).body).toEqual({ id: '15550000000@c.us', pushName: 'Grace Hopper' });
    await gw.api('POST', '/api/sendText', { session: 'prof-name', chatId: '12132132130@c.us', text: 'renamed' });
    const event = await waitFor(() => ws.events('message.any')[0], 'message.any');
    expect(event.me).toEqual({ id: '15550000000@c.us', pushName: 'Grace Hopper' });
    ws.close();
  });

  it('PUT status (the About text) answers 200 {success: true}', async () => {
    const res = await gw.api('PUT', '/api/prof-name/profile/status', { status: '🎉 Hey there! I am using the API' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
  });

  it('refuses an empty or too long name or status with 400 naming the field, and changes nothing', async () => {
    const cases: [string, unknown, string][] = [
      ['/api/prof-name/profile/name', { name: '' }, 'body.name'],
      ['/api/prof-name/profile/name', { name: 'x'.repeat(26) }, 'body.name'],
      ['/api/prof-name/profile/name', {}, 'body.name'],
      ['/api/prof-name/profile/status', { status: '' }, 'body.status'],
      ['/api/prof-name/profile/status', { status: 'x'.repeat(140) }, 'body.status'],
    ];
    for (const [path, body, field] of cases) {
      const res = await gw.api('PUT', path, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.details.map((d: { path: string }) => d.path)).toEqual([field]);
    }
    expect((await profileOf('prof-name')).name).toBe('Grace Hopper');
  });

  it('the name survives a restart: it is kept with the pairing', async () => {
    await restarted(gw, 'prof-name');
    expect((await profileOf('prof-name')).name).toBe('Grace Hopper');
    expect((await gw.api('GET', '/api/sessions/prof-name/me')).body).toEqual({ id: '15550000000@c.us', pushName: 'Grace Hopper' });
  });
});

describe('4.4 profile: picture', () => {
  beforeAll(async () => {
    await workingSession(gw, 'prof-pic', { engine: 'SANDBOX' });
  });

  it('PUT picture with base64 data answers 200; picture is then an address that serves the image', async () => {
    const res = await gw.api('PUT', '/api/prof-pic/profile/picture', {
      file: { mimetype: 'image/png', filename: 'me.png', data: PNG.toString('base64') },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    const { picture } = await profileOf('prof-pic');
    expect(new URL(picture).pathname).toMatch(/^\/api\/files\/prof-pic\/[A-Za-z0-9_-]{22}\.png$/);
    expect(await download(picture)).toEqual({ type: 'image/png', bytes: PNG });
  });

  it('PUT picture with a URL: the engine downloads it', async () => {
    const res = await gw.api('PUT', '/api/prof-pic/profile/picture', { file: { mimetype: 'image/gif', url: `${picturesUrl}/me.gif` } });
    expect(res.status).toBe(200);
    const { picture } = await profileOf('prof-pic');
    expect(await download(picture)).toEqual({ type: 'image/gif', bytes: GIF });
  });

  it('the picture survives a restart', async () => {
    const before = (await profileOf('prof-pic')).picture;
    await restarted(gw, 'prof-pic');
    expect((await profileOf('prof-pic')).picture).toBe(before);
  });

  it('a URL that cannot be downloaded is a 400 naming body.file.url, and the picture stays', async () => {
    const before = (await profileOf('prof-pic')).picture;
    const res = await gw.api('PUT', '/api/prof-pic/profile/picture', { file: { mimetype: 'image/gif', url: `${picturesUrl}/missing.gif` } });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([{ path: 'body.file.url', reason: expect.stringContaining('404') }]);
    expect((await profileOf('prof-pic')).picture).toBe(before);
  });

  it('refuses a file that is not an image, has no source or has both, naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ mimetype: 'application/pdf', data: PNG.toString('base64') }, 'body.file.mimetype'],
      [{ mimetype: 'image/png' }, 'body.file.url'],
      [{ mimetype: 'image/png', url: `${picturesUrl}/me.gif`, data: PNG.toString('base64') }, 'body.file.data'],
      [{ mimetype: 'image/png', data: 'not base64!' }, 'body.file.data'],
    ];
    for (const [file, field] of cases) {
      const res = await gw.api('PUT', '/api/prof-pic/profile/picture', { file });
      expect(res.status, JSON.stringify(file)).toBe(400);
      expect(res.body.details.map((d: { path: string }) => d.path)).toContain(field);
    }
    expect((await gw.api('PUT', '/api/prof-pic/profile/picture', {})).body.details[0].path).toBe('body.file');
  });

  it('DELETE picture answers 200 {success: true}; picture is null again', async () => {
    const res = await gw.api('DELETE', '/api/prof-pic/profile/picture');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect((await profileOf('prof-pic')).picture).toBeNull();
  });
});

describe('4.4 profile: sessions that cannot', () => {
  it('a session that is not WORKING answers 422 with session, status and expected', async () => {
    await gw.api('POST', '/api/sessions', { name: 'prof-qr', engine: 'SANDBOX' });
    await waitForStatus(gw, 'prof-qr', 'SCAN_QR_CODE');
    const calls: [string, string, unknown?][] = [
      ['GET', '/api/prof-qr/profile'],
      ['PUT', '/api/prof-qr/profile/name', { name: 'Nobody' }],
      ['PUT', '/api/prof-qr/profile/status', { status: 'Away' }],
      ['PUT', '/api/prof-qr/profile/picture', { file: { mimetype: 'image/png', data: PNG.toString('base64') } }],
      ['DELETE', '/api/prof-qr/profile/picture'],
    ];
    for (const [method, path, body] of calls) {
      const res = await gw.api(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(422);
      expect(res.body.details).toEqual({ session: 'prof-qr', status: 'SCAN_QR_CODE', expected: ['WORKING'] });
    }
  });

  it('an unknown session answers 404', async () => {
    for (const [method, path, body] of [
      ['GET', '/api/ghost/profile'],
      ['PUT', '/api/ghost/profile/name', { name: 'Nobody' }],
      ['DELETE', '/api/ghost/profile/picture'],
    ] as const) {
      const res = await gw.api(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.details).toEqual({ session: 'ghost' });
    }
  });

  it('logout forgets the profile with the pairing', async () => {
    await workingSession(gw, 'prof-logout', { engine: 'SANDBOX' });
    await gw.api('PUT', '/api/prof-logout/profile/name', { name: 'Temporary' });
    await gw.api('PUT', '/api/prof-logout/profile/picture', { file: { mimetype: 'image/png', data: PNG.toString('base64') } });
    await gw.api('POST', '/api/sessions/prof-logout/logout');
    await waitForStatus(gw, 'prof-logout', 'SCAN_QR_CODE');
    await gw.api('POST', '/api/prof-logout/sandbox/simulate', { kind: 'scan' });
    await waitForStatus(gw, 'prof-logout', 'WORKING');
    expect(await profileOf('prof-logout')).toEqual({ id: '15550000000@c.us', name: 'Sandbox', picture: null });
  });
});

describe('4.4 profile in the OpenAPI document', () => {
  it('declares the five operations with the reference schemas', async () => {
    const doc = (await gw.api('GET', '/docs/openapi.json', undefined, null)).body;
    expect(Object.keys(doc.paths['/api/{session}/profile'])).toContain('get');
    for (const path of ['/api/{session}/profile/name', '/api/{session}/profile/status', '/api/{session}/profile/picture']) {
      expect(doc.paths[path].put.responses['200'], path).toBeDefined();
    }
    expect(doc.paths['/api/{session}/profile/picture'].delete.responses['200']).toBeDefined();
    const schemas = doc.components.schemas;
    expect(Object.keys(schemas.MyProfile.properties).sort()).toEqual(['id', 'name', 'picture']);
    expect(Object.keys(schemas.Result.properties)).toEqual(['success']);
    expect(Object.keys(schemas.ProfileNameRequest.properties)).toEqual(['name']);
    expect(Object.keys(schemas.ProfileStatusRequest.properties)).toEqual(['status']);
    expect(Object.keys(schemas.ProfilePictureRequest.properties)).toEqual(['file']);
  });
});
