import { waitFor } from '@switchboard/testkit';
import { describe, expect, it } from 'vitest';
import { ADMIN_KEY, startGateway, workingSession } from '../support/gateway.js';

describe('local persistence: history and media across a restart of the gateway', () => {
  it('a gateway started again on the same data dir answers the same history and serves the same files', async () => {
    const first = await startGateway();
    await workingSession(first, 'keep');
    const chat = '15553330001@c.us';
    const received = await first.api('POST', '/api/keep/sandbox/simulate', {
      kind: 'message',
      from: chat,
      body: 'a file',
      media: { mimetype: 'text/plain', filename: 'note.txt', data: Buffer.from('kept').toString('base64') },
    });
    await first.api('POST', '/api/sendText', { session: 'keep', chatId: chat, text: 'thanks' });
    const before = await waitFor(async () => {
      const res = await first.api('GET', `/api/keep/chats/${chat}/messages`);
      return res.body.length === 2 && res.body.every((r: { ack: number }) => r.ack === 2) && res.body;
    }, 'both messages recorded, the sent one at DEVICE');
    await first.close();

    const second = await startGateway({ dataDir: first.dataDir });
    try {
      expect((await second.api('GET', `/api/keep/chats/${chat}/messages`)).body).toEqual(before);
      const path = new URL(received.body.media.url).pathname;
      const file = await fetch(second.url + path, { headers: { 'x-api-key': ADMIN_KEY } });
      expect(file.status).toBe(200);
      expect(await file.text()).toBe('kept');
    } finally {
      await second.close();
    }
  });
});
