import {
  envelopeSchema,
  type EventEnvelope,
  type EventName,
  MeInfo,
  MessageRecord,
  parseEnvelope,
  QRCodeValue,
  type SessionStatus,
} from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineHost, HostedEvent } from '../../src/index.js';
import { type ConformanceDriver, NowebDriver, SandboxDriver } from './drivers.js';

/** The keys of a payload, sorted: the shape two engines must share for the same story. */
const shape = (payload: object) => Object.keys(payload).sort();

const MESSAGE_SHAPE = shape(MessageRecord.parse({
  id: 'x', timestamp: 0, from: 'x', fromMe: false, source: 'app', to: 'x', participant: null, body: '', hasMedia: false,
  media: null, ack: 0, ackName: 'PENDING', vCards: [], replyTo: null, _data: {},
}));
const ACK_SHAPE = ['ack', 'ackName', 'from', 'fromMe', 'id', 'participant', 'to'];
const CONTACT = '15551110000@c.us';

/**
 * One set of stories, run against every engine through its driver: the same commands get the
 * same answers, and the same events come out in the same shapes, each envelope parsed with the
 * protocol schema of its own event.
 */
describe.each([
  ['SANDBOX', async (): Promise<ConformanceDriver> => new SandboxDriver()],
  ['NOWEB on the fake WhatsApp Web server', async (): Promise<ConformanceDriver> => NowebDriver.start()],
])('engine conformance: %s', (_name, makeDriver) => {
  let driver: ConformanceDriver;
  let host: EngineHost;
  const events: HostedEvent[] = [];
  let me: MeInfo;

  const of = (name: EventName, since = 0): EventEnvelope[] =>
    events.slice(since).filter((e) => e.envelope.event === name).map((e) => envelopeSchema(name).parse(e.envelope) as EventEnvelope);
  const waitForStatus = (status: SessionStatus) => waitFor(() => host.status === status, `${driver.engine} to be ${status}`);

  beforeAll(async () => {
    driver = await makeDriver();
    host = driver.host(events);
  });
  afterAll(async () => {
    await host.stop();
    for (const { envelope } of events) expect(() => parseEnvelope(envelope)).not.toThrow();
    await driver.close();
  });

  it('pairs: STARTING, SCAN_QR_CODE with a QR value, then WORKING with me', async () => {
    await host.start();
    await waitForStatus('SCAN_QR_CODE');
    const qr = QRCodeValue.parse(await host.execute({ op: 'auth.qr' }));
    expect(qr.value.length).toBeGreaterThan(20);
    me = await driver.scan(host, qr.value);
    await waitForStatus('WORKING');
    expect(MeInfo.parse(await host.execute({ op: 'me' }))).toEqual(me);
    expect(me.id).toMatch(/^\d+@c\.us$/);
    const statuses = of('session.status').map((e) => e.payload.status);
    expect(statuses.slice(0, 2)).toEqual(['STARTING', 'SCAN_QR_CODE']);
    expect(statuses.at(-1)).toBe('WORKING');
    expect(of('session.status').at(-1)!.me).toEqual(me);
  });

  it('an incoming text is message, then message.any, both with source app, from the contact to me', async () => {
    const since = events.length;
    const id = await driver.incomingText(host, CONTACT, 'story: hello');
    await waitFor(() => of('message.any', since).length > 0, 'message.any');
    const [message] = of('message', since);
    const [any] = of('message.any', since);
    expect(message!.id < any!.id).toBe(true);
    for (const envelope of [message!, any!]) {
      expect(shape(envelope.payload)).toEqual(MESSAGE_SHAPE);
      expect(envelope.payload).toMatchObject({
        id: `false_${CONTACT}_${id}`,
        from: CONTACT,
        to: me.id,
        fromMe: false,
        source: 'app',
        body: 'story: hello',
        participant: null,
        hasMedia: false,
        ack: 2,
        ackName: 'DEVICE',
      });
      expect(envelope.me).toEqual(me);
    }
  });

  it('a sent text answers its record (PENDING, api), then message.any (api), message.ack SERVER and DEVICE', async () => {
    const since = events.length;
    const record = MessageRecord.parse(
      await host.execute({ op: 'send.text', args: { chatId: CONTACT, text: 'story: sent', linkPreview: true } }),
    );
    expect(shape(record)).toEqual(MESSAGE_SHAPE);
    expect(record).toMatchObject({ from: me.id, to: CONTACT, fromMe: true, source: 'api', body: 'story: sent', ack: 0, ackName: 'PENDING' });
    expect(record.id).toMatch(new RegExp(`^true_${CONTACT}_[0-9A-Za-z]+$`));
    await waitFor(() => of('message.ack', since).some((e) => e.payload.ack === 1), 'SERVER');
    await driver.delivered(record);
    await waitFor(() => of('message.ack', since).some((e) => e.payload.ack === 2), 'DEVICE');
    const [any] = of('message.any', since);
    expect(any!.payload).toEqual(record);
    const acks = of('message.ack', since);
    expect(acks.map((e) => e.payload.ackName)).toEqual(['SERVER', 'DEVICE']);
    expect(any!.id < acks[0]!.id).toBe(true);
    for (const ack of acks) {
      expect(shape(ack.payload)).toEqual(ACK_SHAPE);
      expect(ack.payload).toMatchObject({ id: record.id, from: CONTACT, to: me.id, participant: null, fromMe: true });
    }
  });

  it('stop keeps the pairing: the next start is WORKING with no QR code', async () => {
    await host.stop();
    const since = events.length;
    await host.start();
    await waitForStatus('WORKING');
    expect(of('session.status', since).map((e) => e.payload.status)).toEqual(['STARTING', 'WORKING']);
    expect(host.me).toEqual(me);
  });

  it('logout forgets the pairing: the next start shows a QR code again', async () => {
    await host.logout();
    expect(host.me).toBeNull();
    await host.stop();
    await host.start();
    await waitForStatus('SCAN_QR_CODE');
    expect(QRCodeValue.parse(await host.execute({ op: 'auth.qr' })).value.length).toBeGreaterThan(20);
  });
});
