import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MEDIA_BODY_LIMIT } from '../src/routes/chatting-route.js';
import { startGateway, type TestGateway, workingSession } from './support/gateway.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway();
  await workingSession(gw, 'big', { engine: 'SANDBOX' });
});
afterAll(async () => {
  await gw.close();
});

/** A base64 file of about `bytes` bytes of body. */
const fileOf = (bytes: number) => ({ mimetype: 'application/octet-stream', data: Buffer.alloc(Math.floor((bytes * 3) / 4), 1).toString('base64') });

describe('media routes take larger bodies (base64 files)', () => {
  it('a 4 MiB file is sent, while other routes refuse a body over 1 MiB', async () => {
    const file = fileOf(4 * 1024 * 1024);
    const sent = await gw.api('POST', '/api/sendFile', { session: 'big', chatId: '15551234567@c.us', file });
    expect(sent.status).toBe(201);
    expect(sent.body._data.size).toBe(Buffer.from(file.data, 'base64').length);
    const text = await gw.api('POST', '/api/sendText', { session: 'big', chatId: '15551234567@c.us', text: 'x', padding: file.data });
    expect(text.status).toBe(413);
  });

  it(`a body over the media limit (${DEFAULT_MEDIA_BODY_LIMIT} bytes) is a 413`, async () => {
    const res = await gw.api('POST', '/api/sendImage', { session: 'big', chatId: '15551234567@c.us', file: fileOf(DEFAULT_MEDIA_BODY_LIMIT + 1024) });
    expect(res.status).toBe(413);
  });
});
