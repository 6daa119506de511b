import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type ContractGateway, waitForStatus, workingSession } from './harness.js';

let gw: ContractGateway;
beforeAll(async () => {
  gw = await startGateway();
  await workingSession(gw, 'contacts', { engine: 'SANDBOX' });
  await gw.api('POST', '/api/sessions', { name: 'contacts-qr', engine: 'SANDBOX' });
  await waitForStatus(gw, 'contacts-qr', 'SCAN_QR_CODE');
});
afterAll(async () => {
  await gw.close();
});

const CHECKS = [
  ['POST /api/contacts/check-exists', (phone: string, session = 'contacts') => gw.api('POST', '/api/contacts/check-exists', { phone, session })],
  [
    'GET /api/contacts/check-exists',
    (phone: string, session = 'contacts') => gw.api('GET', `/api/contacts/check-exists?phone=${encodeURIComponent(phone)}&session=${session}`),
  ],
  [
    'GET /api/checkNumberStatus (deprecated)',
    (phone: string, session = 'contacts') => gw.api('GET', `/api/checkNumberStatus?phone=${encodeURIComponent(phone)}&session=${session}`),
  ],
] as const;

describe('contacts: is a number registered (WANumberExistResult)', () => {
  for (const [name, check] of CHECKS) {
    describe(name, () => {
      it('answers 200 {numberExists: true, chatId} for a registered number', async () => {
        const res = await check('12132132130');
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ numberExists: true, chatId: '12132132130@c.us' });
      });

      it('takes the number as people write it: +, spaces, dashes, parentheses, or a chat id', async () => {
        expect((await check('+1 (213) 213-2130')).body).toEqual({ numberExists: true, chatId: '12132132130@c.us' });
        expect((await check('12132132130@c.us')).body).toEqual({ numberExists: true, chatId: '12132132130@c.us' });
      });

      it('answers {numberExists: false} without chatId for a number the service does not have (SANDBOX: 000...)', async () => {
        const res = await check('0001234567');
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ numberExists: false });
      });

      it('refuses what is not a phone number with 400 naming phone', async () => {
        const res = await check('call me');
        expect(res.status).toBe(400);
        expect(res.body.details).toEqual([
          { path: expect.stringMatching(/^(body|querystring)\.phone$/), reason: expect.stringContaining('phone number') },
        ]);
      });

      it('refuses a phone of many separators from a read-only key with 400 for its length: the pattern never reads it (issue 26)', async () => {
        const made = await gw.api('POST', '/api/keys', { actions: { read: true } });
        expect(made.status).toBe(201);
        const post = name === 'POST /api/contacts/check-exists';
        // 64k characters in a body; in a query, as many as a request line may carry.
        const huge = ' ('.repeat(post ? 32 * 1024 : 2048);
        const res = post
          ? await gw.api('POST', '/api/contacts/check-exists', { phone: huge, session: 'contacts' }, made.body.key)
          : await gw.api('GET', `${name.split(' ')[1]}?phone=${encodeURIComponent(huge)}&session=contacts`, undefined, made.body.key);
        expect(res.status).toBe(400);
        expect(res.body.details).toEqual([
          { path: expect.stringMatching(/^(body|querystring)\.phone$/), reason: expect.stringContaining('64 characters') },
        ]);
      });

      it('answers 404 for an unknown session and 422 for one that is not WORKING', async () => {
        const unknown = await check('12132132130', 'ghost');
        expect(unknown.status).toBe(404);
        expect(unknown.body.details).toEqual({ session: 'ghost' });
        const scanning = await check('12132132130', 'contacts-qr');
        expect(scanning.status).toBe(422);
        expect(scanning.body.details).toEqual({ session: 'contacts-qr', status: 'SCAN_QR_CODE', expected: ['WORKING'] });
      });
    });
  }

  it('phone is required and session defaults to "default"', async () => {
    const missing = await gw.api('POST', '/api/contacts/check-exists', { session: 'contacts' });
    expect(missing.status).toBe(400);
    expect(missing.body.details.map((d: { path: string }) => d.path)).toEqual(['body.phone']);
    const missingQuery = await gw.api('GET', '/api/checkNumberStatus?session=contacts');
    expect(missingQuery.body.details.map((d: { path: string }) => d.path)).toEqual(['querystring.phone']);
    const noSession = await gw.api('POST', '/api/contacts/check-exists', { phone: '12132132130' });
    expect(noSession.status).toBe(404);
    expect(noSession.body.details).toEqual({ session: 'default' });
  });
});

describe('GET /api/{session}/new-message-id', () => {
  it('answers 200 {id}: a fresh id each time, of the form a send accepts', async () => {
    const first = await gw.api('GET', '/api/contacts/new-message-id');
    const second = await gw.api('GET', '/api/contacts/new-message-id');
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ id: expect.stringMatching(/^[0-9A-Za-z]{8,64}$/) });
    expect(second.body.id).not.toBe(first.body.id);
  });

  it('a send with that id makes a message with that id', async () => {
    const { id } = (await gw.api('GET', '/api/contacts/new-message-id')).body;
    const sent = await gw.api('POST', '/api/sendText', { session: 'contacts', chatId: '12132132130@c.us', text: 'known id', id });
    expect(sent.status).toBe(201);
    expect(sent.body.id).toBe(`true_12132132130@c.us_${id}`);
  });

  it('works before pairing too, answers 422 for a stopped session and 404 for an unknown one', async () => {
    expect((await gw.api('GET', '/api/contacts-qr/new-message-id')).status).toBe(200);
    await gw.api('POST', '/api/sessions', { name: 'contacts-stopped', engine: 'SANDBOX', start: false });
    const stopped = await gw.api('GET', '/api/contacts-stopped/new-message-id');
    expect(stopped.status).toBe(422);
    expect(stopped.body.details).toMatchObject({ session: 'contacts-stopped', status: 'STOPPED' });
    expect((await gw.api('GET', '/api/ghost/new-message-id')).status).toBe(404);
  });
});

describe('contacts and message ids in the OpenAPI document', () => {
  it('declares check-exists (POST, GET), the deprecated checkNumberStatus and new-message-id with the reference schemas', async () => {
    const doc = (await gw.api('GET', '/docs/openapi.json', undefined, null)).body;
    expect(Object.keys(doc.paths['/api/contacts/check-exists']).sort()).toEqual(['get', 'post']);
    expect(doc.paths['/api/checkNumberStatus'].get.deprecated).toBe(true);
    expect(doc.paths['/api/{session}/new-message-id'].get.responses['200']).toBeDefined();
    expect(Object.keys(doc.components.schemas.WANumberExistResult.properties).sort()).toEqual(['chatId', 'numberExists']);
    expect(Object.keys(doc.components.schemas.NewMessageIDResponse.properties)).toEqual(['id']);
  });
});
