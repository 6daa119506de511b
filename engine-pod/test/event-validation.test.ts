import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppConfig, type EventEnvelope } from '@switchboard/protocol';
import { describe, expect, it } from 'vitest';
import { newEventId } from '../src/event-ids.js';
import { type EngineContext, EngineHost, eventIssues, FileAuthStateStore, type HostedEvent, type InvalidEvent, SandboxEngine } from '../src/index.js';

const CALLER = '15551230001@c.us';
const call = (id: string) => ({ id, from: CALLER, timestamp: 1_700_000_000, isVideo: false, isGroup: false, _data: {} });

/**
 * A host whose engine, once started, reports two incoming calls: the first mapped wrong (no
 * `timestamp`, `isVideo` a string), the second right. The calls app is on, so it declines
 * every call it sees.
 */
function hostWithDriftingCalls() {
  const published: HostedEvent[] = [];
  const invalid: InvalidEvent[] = [];
  const warnings: { obj: object; msg: string | undefined }[] = [];
  const rejected: string[] = [];
  const host = new EngineHost({
    session: 's1',
    engine: 'SANDBOX',
    factory: (context: EngineContext) => {
      const engine = new SandboxEngine(context, { qrRenewMs: 60_000, ackDelaysMs: { server: 1, device: 2 } });
      const start = engine.start.bind(engine);
      engine.start = async () => {
        await start();
        const { timestamp: _, ...drifted } = call('c1');
        context.emit('call.received', { ...drifted, isVideo: 'no' });
        context.emit('call.received', call('c2'));
      };
      engine.rejectCall = async ({ id }) => void rejected.push(id);
      return engine;
    },
    authState: new FileAuthStateStore(mkdtempSync(join(tmpdir(), 'sb-auth-'))),
    metadata: {},
    apps: [AppConfig.parse({ app: 'calls', config: { dm: { reject: true } } })],
    environment: { tier: 'CORE', version: 'test' },
    publish: (event) => published.push(event),
    log: { info() {}, warn: (obj, msg) => void warnings.push({ obj, msg }), error() {} },
    onInvalidEvent: (event) => invalid.push(event),
  });
  return { host, published, invalid, warnings, rejected };
}

describe('the engine host checks every event against its protocol schema where it makes it', () => {
  it('drops an event that does not match: not published, not seen by the apps; logged with its issues and reported once', async () => {
    const { host, published, invalid, warnings, rejected } = hostWithDriftingCalls();
    await host.start();
    await new Promise((resolve) => setImmediate(resolve));
    await host.stop();

    const calls = published.filter((e) => e.envelope.event === 'call.received').map((e) => e.envelope.payload.id);
    expect(calls).toEqual(['c2']);
    expect(rejected).toEqual(['c2']);
    expect(invalid).toEqual([
      {
        id: expect.stringMatching(/^evt_/) as string,
        session: 's1',
        event: 'call.received',
        issues: [
          { path: 'payload.timestamp', message: expect.any(String) as string },
          { path: 'payload.isVideo', message: expect.any(String) as string },
        ],
      },
    ]);
    expect(warnings).toEqual([
      {
        obj: { eventId: invalid[0]!.id, session: 's1', event: 'call.received', issues: invalid[0]!.issues },
        msg: 'event does not match its protocol schema; dropped, neither recorded nor delivered',
      },
    ]);
    // The statuses around it, made by the host, match theirs and go out.
    expect(published.filter((e) => e.envelope.event === 'session.status').length).toBeGreaterThan(1);
  });
});

describe('eventIssues', () => {
  const envelope = (event: string, payload: Record<string, unknown>, id = newEventId(Date.now())): EventEnvelope =>
    ({
      id,
      timestamp: Date.now(),
      event,
      session: 's1',
      metadata: {},
      environment: { tier: 'CORE', version: 'test', engine: 'SANDBOX', platform: 'linux/x64', worker: { id: 'gateway-0' } },
      engine: 'SANDBOX',
      payload,
    }) as EventEnvelope;

  it('is null for an envelope whose payload matches its event, extra fields included', () => {
    expect(eventIssues(envelope('state.change', { state: 'CONNECTED', extra: 1 }))).toBeNull();
  });

  it('names each issue: a payload of another event, an unknown event name, a broken envelope', () => {
    expect(eventIssues(envelope('message.ack', { seq: 1 }))?.map((issue) => issue.path)).toEqual(
      expect.arrayContaining(['payload.id', 'payload.from', 'payload.fromMe', 'payload.ack', 'payload.ackName']),
    );
    expect(eventIssues(envelope('message.read', {}))).toEqual([{ path: 'event', message: 'unknown event name "message.read"' }]);
    const ack = { id: 'true_15551239999@c.us_ABC', from: '15551239999@c.us', participant: '15551230000@c.us', fromMe: true, ack: 3, ackName: 'READ' };
    expect(eventIssues(envelope('message.ack', ack, 'evt_NOT-A-ULID'))?.map((issue) => issue.path)).toEqual(['id', 'payload.participant']);
  });

  // A host's metadata, account and environment are the same objects in every envelope it makes: a
  // frozen one is checked once, anything else at every event, so a change after a check is seen.
  it('sees a shared member changed after a check, unless it is frozen all the way down', () => {
    const metadata: Record<string, unknown> = { team: 'a' };
    const environment = { tier: 'CORE', version: 'test', engine: 'SANDBOX', platform: 'linux/x64', worker: { id: 'gateway-0' as unknown } };
    const frozenOutside = Object.freeze(environment);
    const withShared = () => ({ ...envelope('state.change', { state: 'CONNECTED' }), metadata, environment: frozenOutside }) as EventEnvelope;
    expect(eventIssues(withShared())).toBeNull();
    metadata.team = 7;
    environment.worker.id = 42;
    expect(eventIssues(withShared())?.map((issue) => issue.path)).toEqual(['metadata.team', 'environment.worker.id']);
  });

  it('is the same verdict when a frozen shared member is reused, and reports a wrong one in full', () => {
    const me = Object.freeze({ id: '15551230000@c.us', pushName: 'Me' });
    const withMe = (payload: Record<string, unknown>) => ({ ...envelope('state.change', payload), me }) as EventEnvelope;
    expect(eventIssues(withMe({ state: 'CONNECTED' }))).toBeNull();
    expect(eventIssues(withMe({ state: 'CONNECTED' }))).toBeNull();
    expect(eventIssues(withMe({}))?.map((issue) => issue.path)).toEqual(['payload.state']);
    const wrongMe = Object.freeze({ id: 5, pushName: 'Me' }) as unknown as typeof me;
    const wrong = { ...envelope('state.change', { state: 'CONNECTED' }), me: wrongMe } as EventEnvelope;
    expect(eventIssues(wrong)?.map((issue) => issue.path)).toEqual(['me.id']);
    expect(eventIssues(wrong)?.map((issue) => issue.path)).toEqual(['me.id']);
  });
});

describe("the shared members of a host's envelopes", () => {
  it('are frozen, all the way down, so the check sees each once', async () => {
    const published: HostedEvent[] = [];
    const host = new EngineHost({
      session: 's1',
      engine: 'SANDBOX',
      factory: (context: EngineContext) => new SandboxEngine(context, { qrRenewMs: 60_000, ackDelaysMs: { server: 1, device: 2 } }),
      authState: new FileAuthStateStore(mkdtempSync(join(tmpdir(), 'sb-auth-'))),
      metadata: { team: 'a' },
      environment: { tier: 'CORE', version: 'test' },
      publish: (event) => published.push(event),
      log: { info() {}, warn() {}, error() {} },
    });
    await host.start();
    host.setMetadata({ team: 'b' });
    await host.execute({ op: 'sandbox.simulate', args: { kind: 'scan' } });
    await host.execute({ op: 'send.text', args: { chatId: '15551234567@c.us', text: 'hi', linkPreview: false } });
    await host.stop();
    const envelopes = published.map((event) => event.envelope);
    expect(envelopes.map((e) => e.metadata.team)).toContain('b');
    expect(envelopes.some((e) => e.event === 'message.any' && e.me)).toBe(true);
    for (const { metadata, environment, me } of envelopes) {
      expect(Object.isFrozen(metadata)).toBe(true);
      expect(Object.isFrozen(environment) && Object.isFrozen(environment.worker)).toBe(true);
      if (me) expect(Object.isFrozen(me)).toBe(true);
    }
  });
});
