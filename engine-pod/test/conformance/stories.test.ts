import {
  ChatPresences,
  type EngineCommand,
  envelopeSchema,
  type EventEnvelope,
  type EventName,
  MeInfo,
  MessageRecord,
  parseEnvelope,
  QRCodeValue,
  type SessionStatus,
  supportsOperation,
} from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineHost, HostedEvent, InvalidEvent } from '../../src/index.js';
import { type ConformanceDriver, GowsDriver, NowebDriver, SandboxDriver, WebjsDriver, WppDriver } from './drivers.js';

/** The keys of a payload, sorted: the shape two engines must share for the same story. */
const shape = (payload: object) => Object.keys(payload).sort();

const MESSAGE_SHAPE = shape(
  MessageRecord.parse({
    id: 'x',
    timestamp: 0,
    from: 'x',
    fromMe: false,
    source: 'app',
    to: 'x',
    participant: null,
    body: '',
    hasMedia: false,
    media: null,
    ack: 0,
    ackName: 'PENDING',
    vCards: [],
    replyTo: null,
    _data: {},
  }),
);
const ACK_SHAPE = ['ack', 'ackName', 'from', 'fromMe', 'id', 'participant', 'to'];
const CONTACT = '15551110000@c.us';

/**
 * One set of stories, run against every engine through its driver: the same commands get the
 * same answers, and the same events come out in the same shapes, each envelope parsed with the
 * protocol schema of its own event.
 */
/** How long a status reached by starting may take, and a story that starts an engine (waitForStatus). */
const START_WAIT_MS = 30_000;
const START_TEST_MS = 45_000;

describe.each([
  ['SANDBOX', 'SANDBOX', async (): Promise<ConformanceDriver> => new SandboxDriver()],
  ['NOWEB on the fake WhatsApp Web server', 'NOWEB', async (): Promise<ConformanceDriver> => NowebDriver.start()],
  ['GOWS on the fake WhatsApp Web server', 'GOWS', async (): Promise<ConformanceDriver> => GowsDriver.start()],
  ['WEBJS through Chromium on the fake WhatsApp Web page', 'WEBJS', async (): Promise<ConformanceDriver> => WebjsDriver.start()],
  ['WPP through Chromium on the fake WhatsApp Web page', 'WPP', async (): Promise<ConformanceDriver> => WppDriver.start()],
] as const)('engine conformance: %s', (_name, engine, makeDriver) => {
  let driver: ConformanceDriver;
  let host: EngineHost;
  const events: HostedEvent[] = [];
  const dropped: InvalidEvent[] = [];
  let me: MeInfo;

  const of = (name: EventName, since = 0): EventEnvelope[] =>
    events
      .slice(since)
      .filter((e) => e.envelope.event === name)
      .map((e) => envelopeSchema(name).parse(e.envelope) as EventEnvelope);
  /**
   * A story of an op the engine's catalog does not list is the host's NOT_SUPPORTED for the same
   * command instead (the gateway answers it as a 422 before the command travels): true when so.
   */
  const refused = async (command: EngineCommand): Promise<boolean> => {
    if (supportsOperation(engine, command.op)) return false;
    await expect(host.execute(command)).rejects.toMatchObject({ code: 'NOT_SUPPORTED', details: { engine } });
    return true;
  };
  /**
   * A status an engine reaches by starting: a browser engine launches Chromium first, which on a
   * loaded 2-core machine took past waitFor's 15 s. The stories that start an engine get
   * START_TEST_MS for it.
   */
  const waitForStatus = (status: SessionStatus) =>
    waitFor(
      () => {
        if (host.status === status) return true;
        // The last one is what a timeout reports: where the engine stood instead, and why.
        throw new Error(`it is ${host.status}${host.failureReason ? ` (${host.failureReason})` : ''}`);
      },
      `${driver.engine} to be ${status}`,
      START_WAIT_MS,
    );

  beforeAll(async () => {
    driver = await makeDriver();
    host = driver.host(events, dropped);
  });
  afterAll(async () => {
    await host.stop();
    for (const { envelope } of events) expect(() => parseEnvelope(envelope)).not.toThrow();
    expect(dropped, 'events the host dropped for not matching their schema').toEqual([]);
    await driver.close();
  });

  it(
    'pairs: STARTING, SCAN_QR_CODE with a QR value, then WORKING with me',
    async () => {
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
    },
    START_TEST_MS,
  );

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
    const record = MessageRecord.parse(await host.execute({ op: 'send.text', args: { chatId: CONTACT, text: 'story: sent', linkPreview: true } }));
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

  // Spec 4.5 beyond text: what both engines can do answers the same records and events.

  /** A send's answer and its `message.any` are the same record, then SERVER follows. */
  const sent = async (command: Parameters<EngineHost['execute']>[0]): Promise<MessageRecord> => {
    const since = events.length;
    const record = MessageRecord.parse(await host.execute(command));
    expect(record).toMatchObject({ from: me.id, to: CONTACT, fromMe: true, source: 'api', participant: null, ack: 0, ackName: 'PENDING' });
    await waitFor(() => of('message.ack', since).some((e) => e.payload.id === record.id && e.payload.ack === 1), 'SERVER');
    expect(of('message.any', since).find((e) => e.payload.id === record.id)!.payload).toEqual(record);
    return record;
  };
  /** A text from the contact, once the session has it: its full id. */
  const incoming = async (body: string): Promise<string> => {
    const since = events.length;
    const id = await driver.incomingText(host, CONTACT, body);
    await waitFor(() => of('message.any', since).length > 0, 'message.any');
    return `false_${CONTACT}_${id}`;
  };

  it('a location answers its record with location (coordinates as strings) and an empty body', async () => {
    const command: EngineCommand = { op: 'send.location', args: { chatId: CONTACT, latitude: 48.8584, longitude: 2.2945, title: 'Tour Eiffel' } };
    if (await refused(command)) return;
    const record = await sent(command);
    expect(shape(record)).toEqual([...MESSAGE_SHAPE, 'location'].sort());
    expect(record).toMatchObject({ body: '', hasMedia: false, vCards: [], replyTo: null });
    expect(record.location).toEqual({ latitude: '48.8584', longitude: '2.2945', live: false, name: 'Tour Eiffel', description: 'Tour Eiffel' });
  });

  it('a contact card answers its record: body the vCard, vCards built from the fields', async () => {
    const command: EngineCommand = {
      op: 'send.contactVcard',
      args: { chatId: CONTACT, contacts: [{ fullName: 'Ada Lovelace', phoneNumber: '+44 20 7946 0000' }] },
    };
    if (await refused(command)) return;
    const record = await sent(command);
    const vcard = 'BEGIN:VCARD\nVERSION:3.0\nFN:Ada Lovelace\nTEL;type=CELL;type=VOICE;waid=442079460000:+44 20 7946 0000\nEND:VCARD';
    expect(record).toMatchObject({ body: vcard, vCards: [vcard], hasMedia: false });
  });

  it('a poll answers its record (body the question); a vote on it answers poll.vote from me and emits it', async () => {
    const command: EngineCommand = {
      op: 'send.poll',
      args: { chatId: CONTACT, poll: { name: 'story: lunch?', options: ['Pizza', 'Sushi'], multipleAnswers: false } },
    };
    if (await refused(command)) return;
    const poll = await sent(command);
    expect(poll.body).toBe('story: lunch?');
    const since = events.length;
    if (await refused({ op: 'send.pollVote', args: { chatId: CONTACT, pollMessageId: poll.id, votes: ['Sushi'] } })) return;
    const vote = (await host.execute({ op: 'send.pollVote', args: { chatId: CONTACT, pollMessageId: poll.id, votes: ['Sushi'] } })) as {
      vote: { id: string };
    };
    expect(vote).toMatchObject({
      vote: { to: CONTACT, from: me.id, fromMe: true, selectedOptions: ['Sushi'] },
      poll: { id: poll.id, to: CONTACT, from: me.id, fromMe: true },
    });
    expect(vote.vote.id).toMatch(new RegExp(`^true_${CONTACT}_[0-9A-Za-z]+$`));
    await waitFor(() => of('poll.vote', since).length > 0, 'poll.vote');
    expect(of('poll.vote', since)[0]!.payload).toEqual(vote);
    await expect(host.execute({ op: 'send.pollVote', args: { chatId: CONTACT, pollMessageId: poll.id, votes: ['Pasta'] } })).rejects.toMatchObject({
      code: 'INVALID',
      details: [{ path: 'body.votes' }],
    });
  });

  it('a reaction answers the message.reaction payload from me and emits it; no message.any', async () => {
    if (await refused({ op: 'message.react', args: { messageId: `false_${CONTACT}_0000000000AAAAAA`, reaction: '❤️' } })) return;
    const target = await incoming('story: react to me');
    const since = events.length;
    const payload = (await host.execute({ op: 'message.react', args: { messageId: target, reaction: '❤️' } })) as { id: string; source: string };
    expect(payload).toMatchObject({ from: me.id, fromMe: true, to: CONTACT, participant: null, reaction: { text: '❤️', messageId: target } });
    expect(shape(payload)).toEqual(['from', 'fromMe', 'id', 'participant', 'reaction', 'source', 'timestamp', 'to']);
    expect(payload.source).toBe('api');
    expect(payload.id).toMatch(new RegExp(`^true_${CONTACT}_[0-9A-Za-z]+$`));
    await waitFor(() => of('message.reaction', since).length > 0, 'message.reaction');
    expect(of('message.reaction', since)[0]!.payload).toEqual(payload);
    expect(of('message.any', since)).toEqual([]);
  });

  it('a forward answers a new record with the original body; an unknown message is NOT_FOUND', async () => {
    if (await refused({ op: 'message.forward', args: { chatId: CONTACT, messageId: `false_${CONTACT}_0000000000AAAAAA` } })) return;
    const original = await incoming('story: pass it on');
    const record = await sent({ op: 'message.forward', args: { chatId: CONTACT, messageId: original } });
    expect(record.body).toBe('story: pass it on');
    expect(record.id).not.toBe(original);
    await expect(
      host.execute({ op: 'message.forward', args: { chatId: CONTACT, messageId: `false_${CONTACT}_0000000000AAAAAA` } }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('seen answers the messages named; typing answers nothing; neither emits an event', async () => {
    if (await refused({ op: 'chat.seen', args: { chatId: CONTACT, messageIds: [] } })) return;
    const read = await incoming('story: read me');
    const since = events.length;
    expect(await host.execute({ op: 'chat.seen', args: { chatId: CONTACT, messageIds: [read] } })).toEqual({ chatId: CONTACT, messageIds: [read] });
    expect(await host.execute({ op: 'chat.typing', args: { chatId: CONTACT, typing: true } })).toBeUndefined();
    expect(await host.execute({ op: 'chat.typing', args: { chatId: CONTACT, typing: false } })).toBeUndefined();
    expect(events.slice(since).map((e) => e.envelope.event)).toEqual([]);
  });

  it('presence: subscribe answers success; a contact typing, then offline, is presence.update each with the contact as its one participant; get and list answer the last', async () => {
    if (await refused({ op: 'presence.subscribe', args: { chatId: CONTACT } })) return;
    expect(await host.execute({ op: 'presence.subscribe', args: { chatId: CONTACT } })).toEqual({ success: true });
    const since = events.length;
    const heard = (presence: string) => () =>
      of('presence.update', since).some((e) => ChatPresences.parse(e.payload).presences.some((p) => p.lastKnownPresence === presence));
    await driver.presence(host, CONTACT, 'composing');
    await waitFor(heard('typing'), 'the contact typing');
    await driver.presence(host, CONTACT, 'unavailable', 1_700_000_000);
    await waitFor(heard('offline'), 'the contact offline');
    const offline = { id: CONTACT, presences: [{ participant: CONTACT, lastKnownPresence: 'offline', lastSeen: 1_700_000_000 }] };
    expect(of('presence.update', since).map((e) => e.payload)).toEqual([
      { id: CONTACT, presences: [{ participant: CONTACT, lastKnownPresence: 'typing', lastSeen: null }] },
      offline,
    ]);
    expect(await host.execute({ op: 'presence.get', args: { chatId: CONTACT } })).toEqual(offline);
    expect(await host.execute({ op: 'presence.list' })).toContainEqual(offline);
  });

  it(
    'stop keeps the pairing: the next start is WORKING with no QR code',
    async () => {
      await host.stop();
      const since = events.length;
      await host.start();
      await waitForStatus('WORKING');
      expect(of('session.status', since).map((e) => e.payload.status)).toEqual(['STARTING', 'WORKING']);
      expect(host.me).toEqual(me);
    },
    START_TEST_MS,
  );

  it(
    'logout forgets the pairing: the next start shows a QR code again',
    async () => {
      await host.logout();
      expect(host.me).toBeNull();
      await host.stop();
      await host.start();
      await waitForStatus('SCAN_QR_CODE');
      expect(QRCodeValue.parse(await host.execute({ op: 'auth.qr' })).value.length).toBeGreaterThan(20);
    },
    START_TEST_MS,
  );
});
