import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type EngineContext, SandboxEngine } from '@switchboard/engine-pod';
import { apiClient, waitFor, WebhookReceiver, WsClient } from '@switchboard/testkit';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventValidator, type InvalidEvent } from '../src/events/event-validator.js';
import { createLocalGateway, type LocalGateway } from '../src/local/create-local-gateway.js';
import { makeEvent } from './webhooks/support.js';

const KEY = 'test-admin-key-0123456789';
const CHAT = '15551239999@c.us';

/**
 * An engine whose mapping drifted: a text whose body is "drift" comes out as `message.any` with a
 * `source` the spec does not have. Everything else is SANDBOX as it is.
 */
function driftingEngine(context: EngineContext) {
  return new SandboxEngine(
    {
      ...context,
      emit: (event, payload) =>
        context.emit(event, event === 'message.any' && payload.body === 'drift' ? { ...payload, source: 'phone' } : payload),
    },
    { qrRenewMs: 60_000, ackDelaysMs: { server: 10, device: 20 } },
  );
}

describe('events are checked against their protocol schema before they leave the gateway', () => {
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

  it('an engine event that drifted from its schema reaches no webhook and no websocket; it is logged and counted', async () => {
    const api = apiClient(url, KEY);
    const ws = await WsClient.connect(url, `x-api-key=${KEY}&session=drift&events=*`);
    await api('POST', '/api/sessions', { name: 'drift', config: { webhooks: [{ url: receiver.url, events: ['*'] }] } });
    await waitFor(async () => (await api('GET', '/api/sessions/drift')).body.status === 'SCAN_QR_CODE', 'QR');
    await api('POST', '/api/drift/sandbox/simulate', { kind: 'scan' });
    const drifted = await api('POST', '/api/sendText', { session: 'drift', chatId: CHAT, text: 'drift' });
    const fine = await api('POST', '/api/sendText', { session: 'drift', chatId: CHAT, text: 'fine' });
    expect([drifted.status, fine.status]).toEqual([201, 201]);

    // The valid events around it go out: the other message, and the acks of both.
    await waitFor(() => receiver.events('message.any').some((e) => e.payload.id === fine.body.id), 'the valid message.any');
    await waitFor(() => receiver.events('message.ack').filter((e) => e.payload.id === drifted.body.id).length === 2, 'acks of the drifted one');
    await waitFor(() => ws.events('message.any').some((e) => e.payload.id === fine.body.id), 'the valid message.any on /ws');
    expect(receiver.events('message.any').map((e) => e.payload.id)).toEqual([fine.body.id]);
    expect(ws.events('message.any').map((e) => e.payload.id)).toEqual([fine.body.id]);

    expect(invalid).toEqual([
      {
        id: expect.stringMatching(/^evt_/),
        session: 'drift',
        event: 'message.any',
        issues: [{ path: 'payload.source', message: expect.any(String) }],
      },
    ]);
    const logged = logLines.map((line) => JSON.parse(line)).filter((entry) => entry.msg?.includes('does not match its protocol schema'));
    expect(logged).toEqual([expect.objectContaining({ session: 'drift', event: 'message.any', eventId: invalid[0]!.id, issues: invalid[0]!.issues })]);
    ws.close();
  });
});

describe('EventValidator', () => {
  const silent = { warn() {} };

  it('accepts an envelope whose payload matches its event', () => {
    const validator = new EventValidator({ log: silent });
    const event = makeEvent('s1', 1, 'state.change');
    const valid = { ...event, envelope: { ...event.envelope, payload: { state: 'CONNECTED' } } };
    expect(validator.accepts(valid)).toBe(true);
    expect(validator.invalid).toBe(0);
  });

  it('names each issue: a payload of another event, an unknown event name, a broken envelope', () => {
    const seen: InvalidEvent[] = [];
    const validator = new EventValidator({ log: silent, onInvalidEvent: (event) => seen.push(event) });
    const event = makeEvent('s1', 1, 'message.ack');
    expect(validator.accepts(event)).toBe(false);
    expect(seen[0]!.issues.map((issue) => issue.path)).toEqual(
      expect.arrayContaining(['payload.id', 'payload.from', 'payload.fromMe', 'payload.ack', 'payload.ackName']),
    );
    expect(validator.accepts({ ...event, envelope: { ...event.envelope, event: 'message.ack.group' as never } })).toBe(false);
    expect(seen[1]!.issues).toEqual([{ path: 'event', message: 'unknown event name "message.ack.group"' }]);
    const ack = { id: 'true_15551239999@c.us_ABC', from: '15551239999@c.us', participant: '15551230000@c.us', fromMe: true, ack: 3, ackName: 'READ' };
    expect(validator.accepts({ ...event, envelope: { ...event.envelope, id: 'evt_NOT-A-ULID', payload: ack } })).toBe(false);
    expect(seen[2]!.issues.map((issue) => issue.path)).toEqual(['id', 'payload.participant']);
    expect(validator.invalid).toBe(3);
  });

  it('isValid checks without reporting', () => {
    const seen: InvalidEvent[] = [];
    const validator = new EventValidator({ log: silent, onInvalidEvent: (event) => seen.push(event) });
    expect(validator.isValid(makeEvent('s1', 1))).toBe(false);
    expect([seen.length, validator.invalid]).toEqual([0, 0]);
  });
});
