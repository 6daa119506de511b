import { type NatsServer, startNatsServer, waitFor, WebhookReceiver, WsClient } from '@switchboard/testkit';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPodConfig } from '../../../engine-pod/src/pod/config.js';
import { EnginePod } from '../../../engine-pod/src/pod/engine-pod.js';
import { DRIFT, driftingEngine } from '../../../engine-pod/test/support/drifting-engine.js';
import type { ControlPlane } from '../../../test/e2e/support/control-plane.js';
import { ADMIN_KEY, startClusterGateway, startControlPlane, type TestClusterGateway } from './kube-support.js';

const NAMESPACE = 'switchboard-test';
const SESSION = 'drift';
const CHAT = '15551239999@c.us';

type Seen = { event: string; payload: Record<string, unknown> };

describe('cluster mode: an event that does not match its protocol schema is dropped in the engine pod, where it is made', () => {
  let cp: ControlPlane;
  let nats: NatsServer;
  let gw: TestClusterGateway;
  const receiver = new WebhookReceiver();
  let pod: { pod: EnginePod; ended: Promise<number> } | undefined;
  const podLog: string[] = [];

  beforeAll(async () => {
    [cp, nats] = await Promise.all([startControlPlane(NAMESPACE), startNatsServer(), receiver.start()]);
    gw = await startClusterGateway(cp, NAMESPACE, nats.url);
  }, 180_000);

  afterAll(async () => {
    if (pod) await Promise.all([pod.pod.shutdown('SIGTERM'), pod.ended]);
    await gw?.close();
    await receiver.stop();
    await Promise.all([cp?.stop(), nats?.stop()]);
  }, 60_000);

  it('reaches no webhook and no websocket, and is neither in the history nor in the event log; the pod logs it', async () => {
    const api = gw.api;
    expect((await api('POST', '/api/sessions', { name: SESSION, config: { webhooks: [{ url: receiver.url, events: ['*'] }] } })).status).toBe(201);
    const ws = await WsClient.connect(gw.url, `x-api-key=${ADMIN_KEY}&session=${SESSION}&events=*`);
    try {
      // The session's engine pod, in process: what the operator would run, with the drifting engine.
      const config = readPodConfig({
        SWITCHBOARD_SESSION: SESSION,
        SWITCHBOARD_NATS_URL: nats.url,
        SWITCHBOARD_POD_NAME: `engine-${SESSION}`,
        SWITCHBOARD_HEALTH_PORT: '0',
      });
      const enginePod = new EnginePod(config, pino({ level: 'warn' }, { write: (line: string) => void podLog.push(line) }), driftingEngine);
      pod = { pod: enginePod, ended: enginePod.run() };
      const hooks = (name: string) => receiver.events(name) as Seen[];
      const frames = (name: string) => ws.events(name) as Seen[];
      const status = (wanted: string) => () => hooks('session.status').some((e) => e.payload.status === wanted);
      await waitFor(status('SCAN_QR_CODE'), 'SCAN_QR_CODE on the webhook');
      expect((await api('POST', `/api/${SESSION}/sandbox/simulate`, { kind: 'scan' })).status).toBe(201);
      await waitFor(status('WORKING'), 'WORKING on the webhook');

      const drifted = await api('POST', '/api/sendText', { session: SESSION, chatId: CHAT, text: DRIFT });
      const fine = await api('POST', '/api/sendText', { session: SESSION, chatId: CHAT, text: 'fine' });
      expect([drifted.status, fine.status]).toEqual([201, 201]);
      const fineId = (fine.body as { id: string }).id;
      const driftedId = (drifted.body as { id: string }).id;

      // Each queue keeps the session's event order: once the fine message's last ack is there, so is everything before it.
      const atDevice = (events: Seen[]) => events.some((e) => e.event === 'message.ack' && e.payload.id === fineId && e.payload.ackName === 'DEVICE');
      await waitFor(() => atDevice(hooks('message.ack')), 'the fine message at DEVICE on the webhook');
      await waitFor(() => atDevice(frames('message.ack')), 'the fine message at DEVICE on /ws');
      expect(hooks('message.any').map((e) => e.payload.id)).toEqual([fineId]);
      expect(frames('message.any').map((e) => e.payload.id)).toEqual([fineId]);
      // The valid events around it go out: the drifted message's acks among them.
      expect(hooks('message.ack').some((e) => e.payload.id === driftedId)).toBe(true);

      const history = await waitFor(async () => {
        const page = await api('GET', `/api/${SESSION}/chats/${encodeURIComponent(CHAT)}/messages?limit=100`);
        const records = page.body as { id: string; ackName: string }[];
        return page.status === 200 && records.some((r) => r.id === fineId && r.ackName === 'DEVICE') && records;
      }, 'the fine message in the history, at DEVICE');
      expect(history.map((record) => record.id)).toEqual([fineId]);
      const log = await api('GET', `/api/${SESSION}/event-log?limit=1000`);
      expect(log.status).toBe(200);
      const logged = log.body as { event: string; payload: { id?: string } }[];
      expect(logged.filter((e) => e.event === 'message.any').map((e) => e.payload.id)).toEqual([fineId]);

      const warned = podLog
        .map((line) => JSON.parse(line) as { msg?: string })
        .filter((entry) => entry.msg?.includes('does not match its protocol schema'));
      expect(warned).toEqual([
        expect.objectContaining({
          session: SESSION,
          event: 'message.any',
          issues: [{ path: 'payload.source', message: expect.any(String) as string }],
        }),
      ]);
    } finally {
      ws.close();
    }
  });
});
