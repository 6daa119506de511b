import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InvalidEvent } from '@switchboard/engine-pod';
import { apiClient, waitFor, WebhookReceiver, WsClient } from '@switchboard/testkit';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DRIFT, driftingEngine } from '../../../engine-pod/test/support/drifting-engine.js';
import { createLocalGateway, type LocalGateway } from '../../src/local/create-local-gateway.js';

const KEY = 'test-admin-key-0123456789';
const CHAT = '15551239999@c.us';

describe('local mode: an event that does not match its protocol schema is dropped where the engine host makes it', () => {
  let gateway: LocalGateway;
  let url: string;
  const receiver = new WebhookReceiver();
  const invalid: InvalidEvent[] = [];
  const logLines: string[] = [];

  beforeAll(async () => {
    await receiver.start();
    gateway = await createLocalGateway({
      port: 0,
      host: '127.0.0.1',
      dataDir: mkdtempSync(join(tmpdir(), 'switchboard-drift-')),
      apiKey: KEY,
      defaultEngine: 'SANDBOX',
      logLevel: 'silent',
      logger: pino({ level: 'warn' }, { write: (line: string) => void logLines.push(line) }),
      globalWebhook: null,
      engines: { SANDBOX: driftingEngine },
      onInvalidEvent: (event) => invalid.push(event),
    });
    url = await gateway.listen();
  });
  afterAll(async () => {
    await gateway.close();
    await receiver.stop();
  });

  it('reaches no webhook and no websocket, and is neither in the history nor in the event log; it is logged and counted', async () => {
    const api = apiClient(url, KEY);
    const ws = await WsClient.connect(url, `x-api-key=${KEY}&session=drift&events=*`);
    await api('POST', '/api/sessions', { name: 'drift', config: { webhooks: [{ url: receiver.url, events: ['*'] }] } });
    await waitFor(async () => (await api('GET', '/api/sessions/drift')).body.status === 'SCAN_QR_CODE', 'QR');
    await api('POST', '/api/drift/sandbox/simulate', { kind: 'scan' });
    const drifted = await api('POST', '/api/sendText', { session: 'drift', chatId: CHAT, text: DRIFT });
    const fine = await api('POST', '/api/sendText', { session: 'drift', chatId: CHAT, text: 'fine' });
    expect([drifted.status, fine.status]).toEqual([201, 201]);

    // The valid events around it go out: the other message, and the acks of both.
    await waitFor(() => receiver.events('message.any').some((e) => e.payload.id === fine.body.id), 'the valid message.any');
    await waitFor(() => receiver.events('message.ack').filter((e) => e.payload.id === drifted.body.id).length === 2, 'acks of the drifted one');
    await waitFor(() => ws.events('message.any').some((e) => e.payload.id === fine.body.id), 'the valid message.any on /ws');
    expect(receiver.events('message.any').map((e) => e.payload.id)).toEqual([fine.body.id]);
    expect(ws.events('message.any').map((e) => e.payload.id)).toEqual([fine.body.id]);

    const history = await api('GET', `/api/drift/chats/${encodeURIComponent(CHAT)}/messages?limit=100`);
    expect(history.status).toBe(200);
    expect((history.body as { id: string }[]).map((record) => record.id)).toEqual([fine.body.id]);
    const log = await api('GET', '/api/drift/event-log?limit=1000');
    expect(log.status).toBe(200);
    const logged = log.body as { id: string; event: string; payload: { id?: string } }[];
    expect(logged.filter((e) => e.event === 'message.any').map((e) => e.payload.id)).toEqual([fine.body.id]);

    expect(invalid).toEqual([
      {
        id: expect.stringMatching(/^evt_/),
        session: 'drift',
        event: 'message.any',
        issues: [{ path: 'payload.source', message: expect.any(String) }],
      },
    ]);
    const warned = logLines.map((line) => JSON.parse(line)).filter((entry) => entry.msg?.includes('does not match its protocol schema'));
    expect(warned).toEqual([
      expect.objectContaining({ session: 'drift', event: 'message.any', eventId: invalid[0]!.id, issues: invalid[0]!.issues }),
    ]);
    ws.close();
  });
});
