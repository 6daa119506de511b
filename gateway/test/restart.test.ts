import { waitFor, WebhookReceiver } from '@switchboard/testkit';
import { describe, expect, it } from 'vitest';
import { startGateway, workingSession } from './support/gateway.js';

describe('local persistence: a restart of the gateway', () => {
  it('keeps sessions and their config, starts the running ones again, and still delivers pending webhooks', async () => {
    const receiver = await new WebhookReceiver('k').start();
    const port = Number(new URL(receiver.url).port);
    const webhook = { url: receiver.url, events: ['message'], hmac: { key: 'k' }, retries: { policy: 'constant', delaySeconds: 0.1, attempts: 100 } };

    const first = await startGateway();
    await workingSession(first, 'keep', { config: { metadata: { team: 'a' }, webhooks: [webhook] } });
    await first.api('POST', '/api/sessions', { name: 'idle', start: false });

    // The receiver goes away; an incoming message's delivery is left pending.
    await receiver.stop();
    const sent = await first.api('POST', '/api/keep/sandbox/simulate', { kind: 'message', from: '15551112222@c.us', body: 'while down' });
    expect(sent.status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 250));
    await first.close();

    await receiver.start(port);
    const second = await startGateway({ dataDir: first.dataDir });
    try {
      const delivered = await waitFor(() => receiver.events('message')[0], 'the pending delivery', 5_000);
      expect(delivered.payload).toMatchObject({ id: sent.body.id, body: 'while down' });
      expect(receiver.received[0]!.hmacValid).toBe(true);

      const keep = await waitFor(async () => {
        const res = await second.api('GET', '/api/sessions/keep');
        return res.body.status === 'WORKING' && res.body;
      }, 'keep WORKING again without a scan');
      // The key is kept (the delivery above is signed with it) and shown masked (docs/api.md).
      expect(keep.config).toEqual({ metadata: { team: 'a' }, webhooks: [{ ...webhook, hmac: { key: '***' } }] });
      expect(keep.me).toEqual({ id: '15550000000@c.us', pushName: 'Sandbox' });

      const idle = await second.api('GET', '/api/sessions/idle');
      expect(idle.body.status).toBe('STOPPED');
      // Delivered once: no duplicate of the same event arrives later.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(receiver.events('message').filter((e) => e.payload.id === sent.body.id)).toHaveLength(1);
    } finally {
      await second.close();
      await receiver.stop();
    }
  });
});
