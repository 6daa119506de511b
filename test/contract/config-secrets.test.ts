import { waitFor, WebhookReceiver } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContractGateway, mode, startGateway, workingSession } from './harness.js';

/** Events reach the receiver through NATS and a webhook queue in cluster mode: give them time. */
const TIMEOUT_MS = 15_000;
const FROM = '15557654321@c.us';
const HMAC_KEY = 'hmac-s3cret-value';
const HEADER_VALUE = 'Bearer header-s3cret';
const SECRETS = [HMAC_KEY, HEADER_VALUE, 'url-passw0rd', 'url-t0ken', 'bare-t0ken', 'alice'];

let gw: ContractGateway;
const receivers: WebhookReceiver[] = [];
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(async () => {
  await gw.close();
  await Promise.all(receivers.map((r) => r.stop()));
});

async function receiver(hmacKey: string): Promise<WebhookReceiver> {
  const started = await new WebhookReceiver(hmacKey).start();
  receivers.push(started);
  return started;
}

/** The receiver's url with credentials in each place a url can hold them. */
function secretUrl(rx: WebhookReceiver): string {
  const url = new URL(rx.url);
  url.username = 'alice';
  url.password = 'url-passw0rd';
  url.search = 'token=url-t0ken&bare-t0ken&lang=en';
  return url.href;
}

function webhook(rx: WebhookReceiver) {
  return {
    url: secretUrl(rx),
    events: ['message'],
    hmac: { key: HMAC_KEY },
    customHeaders: [{ name: 'Authorization', value: HEADER_VALUE }],
  };
}

function maskedWebhook(rx: WebhookReceiver) {
  const url = new URL(rx.url);
  return {
    url: `http://***:***@${url.host}${url.pathname}?token=***&***&lang=***`,
    events: ['message'],
    hmac: { key: '***' },
    customHeaders: [{ name: 'Authorization', value: '***' }],
  };
}

function expectNoSecret(body: unknown): void {
  const text = JSON.stringify(body);
  for (const secret of SECRETS) expect(text).not.toContain(secret);
}

async function incoming(session: string, body: string): Promise<void> {
  const res = await gw.api('POST', `/api/${session}/sandbox/simulate`, { kind: 'message', from: FROM, body });
  expect(res.status).toBe(201);
}

describe('secrets in a session config are write-only', () => {
  it('every answer that carries the config shows its secrets as "***", in place', async () => {
    const rx = await receiver(HMAC_KEY);
    const config = { metadata: { team: 'a' }, webhooks: [webhook(rx)] };
    const masked = { metadata: { team: 'a' }, webhooks: [maskedWebhook(rx)] };

    const created = await gw.api('POST', '/api/sessions', { name: 'masked-1', start: false, config });
    expect(created.status).toBe(201);
    expect(created.body.config).toEqual(masked);

    const answers = [
      (await gw.api('GET', '/api/sessions/masked-1')).body,
      (await gw.api('GET', '/api/sessions?all=true')).body.find((s: { name: string }) => s.name === 'masked-1'),
      (await gw.api('PUT', '/api/sessions/masked-1', { config })).body,
      (await gw.api('POST', '/api/sessions/masked-1/start')).body,
      (await gw.api('POST', '/api/sessions/masked-1/stop')).body,
      (await gw.api('POST', '/api/sessions/start', { name: 'masked-1', config })).body,
    ];
    for (const answer of answers) {
      expect(answer.config).toEqual(masked);
      expectNoSecret(answer);
    }
  });

  it.runIf(mode === 'cluster')(
    'cluster mode: the MessagingSession holds no HMAC key, header value or url credential, a Secret it owns does',
    async () => {
      const { readFromCluster } = await import('./cluster-harness.js');
      const rx = await receiver(HMAC_KEY);
      expect((await gw.api('POST', '/api/sessions', { name: 'resource-1', start: false, config: { webhooks: [webhook(rx)] } })).status).toBe(201);
      const resource = await readFromCluster('resource', 'resource-1');
      expectNoSecret(resource);
      const [stored] = resource.spec.config.webhooks;
      expect(stored.url).toBe(maskedWebhook(rx).url);
      const secretName = stored.hmac.keyFrom.secretKeyRef.name;
      expect(stored.customHeaders[0].valueFrom.secretKeyRef.name).toBe(secretName);
      const secret = await readFromCluster('secret', secretName);
      expect(secret.data[stored.urlFrom.secretKeyRef.key]).toBe(secretUrl(rx));
      expect(secret.data[stored.hmac.keyFrom.secretKeyRef.key]).toBe(HMAC_KEY);
      expect(secret.data[stored.customHeaders[0].valueFrom.secretKeyRef.key]).toBe(HEADER_VALUE);
      expect(secret.metadata.ownerReferences).toMatchObject([{ kind: 'MessagingSession', uid: resource.metadata.uid }]);
    },
  );

  it('a PUT that sends the masked config back keeps every secret; a new value replaces one', async () => {
    const rx = await receiver(HMAC_KEY);
    await workingSession(gw, 'roundtrip-1', { config: { webhooks: [webhook(rx)] } });

    const read = await gw.api('GET', '/api/sessions/roundtrip-1');
    const put = await gw.api('PUT', '/api/sessions/roundtrip-1', { config: { ...read.body.config, metadata: { edited: 'yes' } } });
    expect(put.status).toBe(200);
    expect(put.body.config).toEqual({ metadata: { edited: 'yes' }, webhooks: [maskedWebhook(rx)] });

    await incoming('roundtrip-1', 'after the round-trip');
    await waitFor(() => rx.events('message').length === 1, 'the delivery after the round-trip', TIMEOUT_MS);
    const [kept] = rx.received;
    expect(kept!.hmacValid).toBe(true);
    expect(kept!.headers.authorization).toBe(HEADER_VALUE);
    expect(kept!.path).toBe('/hook?token=url-t0ken&bare-t0ken&lang=en');
    expect(kept!.body.metadata).toEqual({ edited: 'yes' });

    // A new header value and query value replace the stored ones; the placeholders beside them still keep theirs.
    const edited = maskedWebhook(rx);
    edited.url = edited.url.replace('lang=***', 'lang=de');
    edited.customHeaders = [{ name: 'Authorization', value: 'Bearer n3w' }];
    expect((await gw.api('PUT', '/api/sessions/roundtrip-1', { config: { webhooks: [edited] } })).status).toBe(200);
    await incoming('roundtrip-1', 'after the edit');
    await waitFor(() => rx.events('message').some((e) => e.payload.body === 'after the edit'), 'the delivery after the edit', TIMEOUT_MS);
    const changed = rx.received.find((hook) => hook.body.payload.body === 'after the edit')!;
    expect(changed.hmacValid).toBe(true);
    expect(changed.headers.authorization).toBe('Bearer n3w');
    expect(changed.path).toBe('/hook?token=url-t0ken&bare-t0ken&lang=de');
  });

  it('refuses a placeholder with no stored secret to keep (400 naming the field) and changes nothing', async () => {
    const rx = await receiver(HMAC_KEY);
    const placeholder = { ...maskedWebhook(rx), url: rx.url };
    const create = await gw.api('POST', '/api/sessions', { name: 'placeholder-1', start: false, config: { webhooks: [placeholder] } });
    expect(create.status).toBe(400);
    expect(create.body.details.map((d: { path: string }) => d.path)).toEqual([
      'body.config.webhooks[0].hmac.key',
      'body.config.webhooks[0].customHeaders[0].value',
    ]);
    expect((await gw.api('GET', '/api/sessions/placeholder-1')).status).toBe(404);

    // A placeholder keeps a secret only for the webhook it was set for: sent with another url it
    // would hand the stored header to another receiver.
    expect((await gw.api('POST', '/api/sessions', { name: 'placeholder-1', start: false, config: { webhooks: [webhook(rx)] } })).status).toBe(201);
    const moved = { ...maskedWebhook(rx), url: 'https://elsewhere.example/hook' };
    const put = await gw.api('PUT', '/api/sessions/placeholder-1', { config: { webhooks: [moved] } });
    expect(put.status).toBe(400);
    expect(put.body.details.map((d: { path: string }) => d.path)).toEqual([
      'body.config.webhooks[0].hmac.key',
      'body.config.webhooks[0].customHeaders[0].value',
    ]);
    const after = await gw.api('GET', '/api/sessions/placeholder-1');
    expect(after.body.config.webhooks).toEqual([maskedWebhook(rx)]);
  });

  it('dead deliveries show the webhook url with its secrets masked', async () => {
    const rx = await receiver(HMAC_KEY);
    rx.respond = () => 500;
    const hook = { ...webhook(rx), retries: { attempts: 1 } };
    await workingSession(gw, 'dead-masked-1', { config: { webhooks: [hook] } });
    await incoming('dead-masked-1', 'refused');
    let dead: { url: string }[] = [];
    await waitFor(async () => (dead = (await gw.api('GET', '/api/dead-masked-1/webhooks/dead')).body).length > 0, 'a dead delivery', TIMEOUT_MS);
    expect(dead[0]!.url).toBe(maskedWebhook(rx).url);
    expectNoSecret(dead);
  });
});
