import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type EventEnvelope, type EventName, parseEnvelope, type SessionStatus } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineHost, FileAuthStateStore, gowsEngineFactory, type HostedEvent, type InvalidEvent } from '../../src/index.js';
import { type FakePhone, FakeWaServer } from '../fake-wa/index.js';
import { buildGows } from './driver.js';

const silent = { info() {}, warn() {}, error() {} };

/**
 * One GOWS session as the gateway runs it in local mode: an EngineHost whose engine is the
 * TypeScript proxy (GowsEngine) over the real `switchboard-gows` child, against the fake server.
 * Every published envelope is parsed against its event's schema; `invalid` collects the rest.
 */
class GowsHostSession {
  readonly events: HostedEvent[] = [];
  readonly invalid: ({ envelope: EventEnvelope; error: unknown } | InvalidEvent)[] = [];
  readonly host: EngineHost;

  constructor(fake: FakeWaServer, binary: string, authDir: string) {
    this.host = new EngineHost({
      session: 'gows',
      engine: 'GOWS',
      factory: gowsEngineFactory({ command: [binary, 'stdio'], wsUrl: fake.url, certRootPubkey: fake.certRootPublicKey, exitTimeoutMs: 10_000 }, [
        'rejectCall',
      ]),
      authState: new FileAuthStateStore(authDir),
      metadata: { suite: 'gows' },
      apps: [],
      settings: {},
      environment: { tier: 'CORE', version: 'test' },
      publish: (event) => {
        this.events.push(event);
        try {
          parseEnvelope(event.envelope);
        } catch (error) {
          this.invalid.push({ envelope: event.envelope, error });
        }
      },
      onInvalidEvent: (dropped) => this.invalid.push(dropped),
      log: silent,
    });
  }

  waitForEvent(name: EventName, match: (payload: Record<string, unknown>) => boolean = () => true, since = 0): Promise<EventEnvelope> {
    return waitFor(
      () => this.events.slice(since).find((e) => e.envelope.event === name && match(e.envelope.payload))?.envelope,
      `${name} on gows`,
      15_000,
    );
  }

  waitForStatus(status: SessionStatus): Promise<SessionStatus> {
    return waitFor(() => this.host.status === status && status, `gows to be ${status}`, 15_000);
  }
}

let fake: FakeWaServer;
let binary: string;
const sessions: GowsHostSession[] = [];

beforeAll(async () => {
  [fake, binary] = await Promise.all([FakeWaServer.start({ signal: true }), buildGows()]);
}, 180_000);

afterAll(async () => {
  for (const s of sessions) await s.host.stop();
  for (const s of sessions) expect(s.invalid).toEqual([]);
  await fake?.close();
});

describe('GOWS through the EngineHost and the GowsEngine proxy (local mode)', () => {
  it('pairs by QR, reaches WORKING, receives and sends with valid envelopes, and resumes after a restart without a QR', async () => {
    const authDir = mkdtempSync(join(tmpdir(), 'sb-gows-host-'));
    const s = new GowsHostSession(fake, binary, authDir);
    sessions.push(s);
    await s.host.start();
    await s.waitForStatus('SCAN_QR_CODE');
    const qr = await waitFor(async () => ((await s.host.execute({ op: 'auth.qr' })) as { value: string }).value, 'a QR code', 15_000);
    const phone: FakePhone = await fake.scanQr(qr, { phone: '15550002222', pushName: 'Grace' });
    await s.waitForStatus('WORKING');
    expect(s.host.me).toEqual({ id: '15550002222@c.us', pushName: 'Grace' });

    fake.contact('15551230002', '245120000000002');
    const inboundId = phone.text('15551230002', 'hello through the host', { pushName: 'Carol' });
    const inbound = await s.waitForEvent('message', (p) => p.body === 'hello through the host');
    expect(inbound.payload).toMatchObject({ id: `false_15551230002@c.us_${inboundId}`, from: '15551230002@c.us', fromMe: false });
    await s.waitForEvent('message.any', (p) => p.id === inbound.payload.id);

    const since = s.events.length;
    const sent = (await s.host.execute({ op: 'send.text', args: { chatId: '15551230002@c.us', text: 'hi Carol', linkPreview: false } })) as Record<
      string,
      unknown
    >;
    expect(sent).toMatchObject({ fromMe: true, to: '15551230002@c.us', body: 'hi Carol', source: 'api' });
    await s.waitForEvent('message.ack', (p) => p.id === sent.id && p.ackName === 'SERVER', since);
    expect(await phone.read(String(sent.id).split('_')[2]!)).toMatchObject({ conversation: 'hi Carol' });

    await s.host.stop();
    const again = new GowsHostSession(fake, binary, authDir);
    sessions.push(again);
    await again.host.start();
    await again.waitForStatus('WORKING');
    expect(
      again.events.some((e) => e.envelope.event === 'session.status' && (e.envelope.payload as { status?: string }).status === 'SCAN_QR_CODE'),
    ).toBe(false);
  });
});
