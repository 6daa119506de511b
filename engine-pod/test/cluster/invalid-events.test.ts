import { type CommandReply, STREAMS, SUBJECTS } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { NatsMessageStore, readHistory } from '../../src/index.js';
import { readPodConfig } from '../../src/pod/config.js';
import { EnginePod } from '../../src/pod/engine-pod.js';
import { DRIFT, driftingEngine } from '../support/drifting-engine.js';
import { natsForTests, streamMessages } from './helpers.js';

const SESSION = 'drift';
const CHAT = '15551239999@c.us';

const nats = natsForTests();
const running: { pod: EnginePod; ended: Promise<number> }[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map(async ({ pod, ended }) => (await pod.shutdown('SIGTERM'), ended)));
});

async function result(body: unknown): Promise<Record<string, unknown>> {
  const reply = (await nats.nc.request(SUBJECTS.command(SESSION), JSON.stringify(body), { timeout: 10_000 })).json<CommandReply>();
  if (!reply.ok) throw new Error(`${JSON.stringify(body)} failed: ${JSON.stringify(reply.error)}`);
  return reply.result as Record<string, unknown>;
}

describe('cluster mode: an event that does not match its protocol schema is dropped in the engine pod, where it is made', () => {
  it('is not published to the event stream and not recorded in the message history; it is logged with its issues', async () => {
    const lines: string[] = [];
    const config = readPodConfig({
      SWITCHBOARD_SESSION: SESSION,
      SWITCHBOARD_NATS_URL: nats.server.url,
      SWITCHBOARD_POD_NAME: 'engine-drift',
      SWITCHBOARD_HEALTH_PORT: '0',
    });
    const pod = new EnginePod(config, pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) }), driftingEngine);
    running.push({ pod, ended: pod.run() });
    await waitFor(async () => {
      try {
        return (await result({ op: 'host.status' })).status === 'SCAN_QR_CODE';
      } catch {
        return false;
      }
    }, 'SCAN_QR_CODE');
    await result({ op: 'sandbox.simulate', args: { kind: 'scan' } });
    // Each reply waits until the events made before it are in the stream.
    const drifted = await result({ op: 'send.text', args: { chatId: CHAT, text: DRIFT } });
    const fine = await result({ op: 'send.text', args: { chatId: CHAT, text: 'fine' } });

    // History is recorded in event order: once the fine message's last ack is in, the drifted one had its turn.
    const store = await NatsMessageStore.open(nats.nc);
    const page = { chatId: CHAT, merge: true, limit: 100, offset: 0, sortOrder: 'asc' } as const;
    const history = await waitFor(async () => {
      const found = await readHistory(store, SESSION, page);
      return found.some((r) => r.id === fine.id && r.ackName === 'DEVICE') && found;
    }, 'the fine message in the history, at DEVICE');
    expect(history.map((r) => r.id)).toEqual([fine.id]);

    // The stream keeps event order too: once the fine message's last ack is in, so is everything made before it.
    const jsm = await nats.nc.jetstreamManager();
    const stream = await waitFor(async () => {
      const stored = (await streamMessages(jsm, STREAMS.events, `sb.evt.${SESSION}.`)).map((m) =>
        m.json<{ event: string; payload: { id?: string; ackName?: string } }>(),
      );
      return stored.some((e) => e.event === 'message.ack' && e.payload.id === fine.id && e.payload.ackName === 'DEVICE') && stored;
    }, 'the fine message at DEVICE in the stream');
    expect(stream.filter((e) => e.event === 'message.any').map((e) => e.payload.id)).toEqual([fine.id]);
    // The valid events around it go out: the drifted message's acks among them.
    expect(stream.some((e) => e.event === 'message.ack' && e.payload.id === drifted.id)).toBe(true);

    const warned = lines
      .map((line) => JSON.parse(line) as { msg?: string })
      .filter((entry) => entry.msg?.includes('does not match its protocol schema'));
    expect(warned).toEqual([
      expect.objectContaining({
        session: SESSION,
        event: 'message.any',
        eventId: expect.stringMatching(/^evt_/) as string,
        issues: [{ path: 'payload.source', message: expect.any(String) as string }],
      }),
    ]);
  }, 60_000);
});
