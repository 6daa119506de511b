import { EVENTS_STREAM_CONFIG } from '@switchboard/kube';
import { type CommandReply, STREAMS, SUBJECTS } from '@switchboard/protocol';
import { DiscardPolicy, type NatsConnection } from 'nats';
import { describe, expect, it } from 'vitest';
import { newEventId } from '../../src/event-ids.js';
import { CommandServer, EngineHost, EventPublisher, type HostedEvent, NatsAuthStateStore, SandboxEngine } from '../../src/index.js';
import { natsForTests, silent, streamMessages } from './helpers.js';

/** A sandbox session whose events go through a real EventPublisher, as in the engine pod. */
async function serve(nc: NatsConnection, session: string, publisher: EventPublisher) {
  const host = new EngineHost({
    session,
    engine: 'SANDBOX',
    factory: (ctx) => new SandboxEngine(ctx),
    authState: await NatsAuthStateStore.open(nc, session),
    metadata: {},
    environment: { tier: 'CORE', version: 'test' },
    publish: (event) => publisher.publish(event),
    log: silent,
  });
  const server = new CommandServer({ nc, session, host, log: silent, events: publisher, storeTimeoutMs: 3_000 });
  server.start();
  await host.start();
  const send = async (command: unknown): Promise<CommandReply> =>
    (await nc.request(SUBJECTS.command(session), JSON.stringify(command), { timeout: 10_000 })).json<CommandReply>();
  const stop = async () => {
    await server.close();
    await host.stop();
    publisher.close();
  };
  return { host, send, stop };
}

async function storedEvents(nc: NatsConnection, session: string): Promise<{ id: string; event: string }[]> {
  const messages = await streamMessages(await nc.jetstreamManager(), STREAMS.events, `sb.evt.${session}.`);
  return messages.map((m) => m.json<{ id: string; event: string }>());
}

describe('CommandServer: a reply means its events are in the stream', () => {
  const nats = natsForTests();

  it('answers a send only once its events (and the 500 queued before them) are acked: they are in the stream when the reply arrives', async () => {
    const publisher = await EventPublisher.open(nats.nc, { log: silent });
    const { send, stop } = await serve(nats.nc, 's-acked', publisher);
    expect(await send({ op: 'sandbox.simulate', args: { kind: 'scan' } })).toMatchObject({ ok: true });
    // A queue ahead of the send, as a busy session has: the reply must wait for all of it.
    for (let n = 0; n < 500; n++) {
      const envelope = { id: newEventId(Date.now()), timestamp: Date.now(), event: 'presence.update', session: 's-acked', payload: { n } };
      publisher.publish({ envelope, json: JSON.stringify(envelope) } as unknown as HostedEvent);
    }
    const reply = await send({ op: 'send.text', args: { chatId: '15551230001@c.us', text: 'stored first' } });
    expect(reply).toMatchObject({ ok: true, result: { id: expect.any(String) } });
    const sentId = (reply as { result: { id: string } }).result.id;
    const stored = await storedEvents(nats.nc, 's-acked');
    expect(stored.filter((e) => e.event === 'presence.update')).toHaveLength(500);
    const sent = stored.filter((e) => e.event === 'message.any' && JSON.stringify(e).includes(sentId));
    expect(sent.length).toBeGreaterThan(0);
    await stop();
  });
});

describe('CommandServer: a command whose events cannot be stored answers an error, not ok', () => {
  const nats = natsForTests();

  it('answers STORAGE_FULL while the stream refuses (max_bytes, discard new), refuses the next command unrun, and recovers', async () => {
    const jsm = await nats.nc.jetstreamManager();
    await jsm.streams.add({ ...EVENTS_STREAM_CONFIG, discard: DiscardPolicy.New });
    const publisher = await EventPublisher.open(nats.nc, { log: silent, bind: true, maxRetryDelayMs: 200 });
    const { send, stop } = await serve(nats.nc, 's-full', publisher);
    expect(await send({ op: 'sandbox.simulate', args: { kind: 'scan' } })).toMatchObject({ ok: true });
    // The stream is full: every publish is refused with "maximum bytes exceeded".
    await jsm.streams.update(STREAMS.events, { ...EVENTS_STREAM_CONFIG, max_bytes: 64, discard: DiscardPolicy.New });

    const ran = await send({ op: 'send.text', args: { chatId: '15551230001@c.us', text: 'sent, not stored' } });
    expect(ran).toEqual({
      ok: false,
      error: {
        code: 'STORAGE_FULL',
        message: expect.stringContaining('the event could not be stored'),
        details: { reason: 'maximum bytes exceeded' },
      },
    });
    expect((ran as { error: { message: string } }).error.message).toContain('the command ran');
    const refused = await send({ op: 'send.text', args: { chatId: '15551230001@c.us', text: 'not sent' } });
    expect(refused).toMatchObject({ ok: false, error: { code: 'STORAGE_FULL', message: expect.stringContaining('the command was not run') } });
    const before = await storedEvents(nats.nc, 's-full');

    // Room again: the queued events are stored (once each) and commands are answered ok.
    await jsm.streams.update(STREAMS.events, { ...EVENTS_STREAM_CONFIG, max_bytes: -1, discard: DiscardPolicy.New });
    expect(await publisher.flush(10_000)).toBe(true);
    expect(await send({ op: 'send.text', args: { chatId: '15551230001@c.us', text: 'sent' } })).toMatchObject({ ok: true });
    const after = await storedEvents(nats.nc, 's-full');
    expect(new Set(after.map((e) => e.id)).size).toBe(after.length);
    const texts = (events: { id: string }[]) => events.map((e) => JSON.stringify(e)).filter((e) => e.includes('"message.any"'));
    expect(texts(before).some((e) => e.includes('sent, not stored'))).toBe(false);
    expect(texts(after).filter((e) => e.includes('sent, not stored'))).toHaveLength(1);
    expect(texts(after).some((e) => e.includes('not sent'))).toBe(false);
    await stop();
  });

  it('answers NOT_STORED when JetStream does not answer (the stream is gone) within the bounded wait', async () => {
    const jsm = await nats.nc.jetstreamManager();
    await jsm.streams.delete(STREAMS.events);
    const publisher = await EventPublisher.open(nats.nc, { log: silent, bind: true, ackTimeoutMs: 500, maxRetryDelayMs: 200 });
    const { send, stop } = await serve(nats.nc, 's-gone', publisher);
    const reply = await send({ op: 'sandbox.simulate', args: { kind: 'scan' } });
    expect(reply).toMatchObject({ ok: false, error: { code: 'NOT_STORED', message: expect.stringContaining('the event could not be stored') } });
    await stop();
  });
});
