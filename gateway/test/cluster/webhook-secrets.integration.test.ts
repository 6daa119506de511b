import { createHmac } from 'node:crypto';
import { ANNOTATIONS, LABELS, webhookSecretName } from '@switchboard/protocol';
import { type NatsServer, type ReceivedHook, startNatsServer, waitFor, WebhookReceiver } from '@switchboard/testkit';
import { connect, type NatsConnection } from 'nats';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ControlPlane } from '../../../test/e2e/support/control-plane.js';
import { resourceClient, startClusterGateway, startControlPlane, startEnginePod, type TestClusterGateway } from './kube-support.js';

const NAMESPACE = 'webhook-secrets';
const signed = (hook: ReceivedHook, key: string) => hook.headers['x-webhook-hmac'] === createHmac('sha512', key).update(hook.raw).digest('hex');

describe('cluster mode keeps webhook secrets in Secrets, not in the MessagingSession', () => {
  let cp: ControlPlane;
  let nats: NatsServer;
  let nc: NatsConnection;
  let gw: TestClusterGateway;
  let cr: ReturnType<typeof resourceClient>;
  const stops: (() => Promise<void>)[] = [];

  /** The gateway's warnings, where the details of a secret that cannot be read go. */
  const logged: { msg: string; detail?: string }[] = [];
  const log = pino({ level: 'warn' }, { write: (line: string) => logged.push(JSON.parse(line)) });

  beforeAll(async () => {
    [cp, nats] = await Promise.all([startControlPlane(NAMESPACE), startNatsServer()]);
    nc = await connect({ servers: nats.url });
    gw = await startClusterGateway(cp, NAMESPACE, nats.url, log);
    cr = resourceClient(cp, NAMESPACE);
  }, 180_000);

  afterAll(async () => {
    await gw?.close();
    await nc?.close();
    await Promise.all([cp?.stop(), nats?.stop()]);
  }, 60_000);

  afterEach(async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  });

  const receiver = async () => {
    const rx = await new WebhookReceiver().start();
    stops.push(() => rx.stop());
    return rx;
  };
  const pod = async (session: string) => {
    const started = await startEnginePod(nc, session);
    stops.push(() => started.stop());
  };
  /** A Secret as the API server has it, its data decoded; null when there is none. */
  const readSecret = async (name: string) => {
    const res = await cp.fetch(`/api/v1/namespaces/${NAMESPACE}/secrets/${name}`);
    if (res.status === 404) return null;
    const secret = (await res.json()) as any;
    const data = Object.fromEntries(Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v as string, 'base64').toString()]));
    return { ...secret, data } as { metadata: any; data: Record<string, string> };
  };
  /** A user's Secret; webhooks may read it only with the opt-in label. */
  const createSecret = async (name: string, stringData: Record<string, string>, forWebhooks = true) => {
    const labels = forWebhooks ? { [LABELS.webhookSecrets]: 'true' } : {};
    const res = await cp.fetch(`/api/v1/namespaces/${NAMESPACE}/secrets`, {
      method: 'POST',
      body: JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name, labels }, stringData }),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status, await res.text()).toBe(201);
  };
  const apply = (manifest: object) => cp.kubectl(['apply', '-n', NAMESPACE, '-f', '-'], JSON.stringify(manifest));
  const manifest = (name: string, webhooks: object[]) => ({
    apiVersion: 'switchboard.dev/v1alpha1',
    kind: 'MessagingSession',
    metadata: { name },
    spec: { engine: 'SANDBOX', desiredState: 'Running', config: { webhooks } },
  });
  /** The session's next events: a scan (WORKING) and then a message, each one event. */
  const simulate = async (session: string, kind: 'scan' | 'message') => {
    const body = kind === 'scan' ? { kind } : { kind, from: '491701234567@c.us', body: 'hello' };
    const res = await gw.api('POST', `/api/${session}/sandbox/simulate`, body);
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  };

  it('puts what a REST client sends into a Secret the resource owns: the resource and every answer show no secret, deliveries are signed and carry the header', async () => {
    const rx = await receiver();
    const [key, token, query] = ['hmac-key-never-shown', 'header-token-never-shown', 'query-token-never-shown'];
    const created = await gw.api('POST', '/api/sessions', {
      name: 'secretive',
      config: {
        webhooks: [{ url: `${rx.url}?t=${query}`, events: ['session.status'], hmac: { key }, customHeaders: [{ name: 'X-Token', value: token }] }],
      },
    });
    expect(created.status).toBe(201);
    const maskedUrl = `${rx.url}?t=***`;
    const masked = [{ url: maskedUrl, events: ['session.status'], hmac: { key: '***' }, customHeaders: [{ name: 'X-Token', value: '***' }] }];
    expect(created.body.config.webhooks).toEqual(masked);
    expect((await gw.api('GET', '/api/sessions/secretive')).body.config.webhooks).toEqual(masked);
    expect((await gw.api('GET', '/api/sessions')).body.find((s: any) => s.name === 'secretive').config.webhooks).toEqual(masked);

    // What `kubectl get msess -o yaml` shows: references, no value.
    const resource = await cr.read('secretive');
    const yaml = await cp.kubectl(['get', 'msess', 'secretive', '-n', NAMESPACE, '-o', 'yaml']);
    for (const text of [JSON.stringify(resource), yaml]) {
      for (const secret of [key, token, query]) expect(text).not.toContain(secret);
    }
    const secretName = webhookSecretName('secretive');
    const webhook = resource.spec.config.webhooks[0];
    expect(webhook.url).toBe(maskedUrl);
    expect(webhook.urlFrom).toEqual({ secretKeyRef: { name: secretName, key: expect.any(String) } });
    expect(webhook.hmac).toEqual({ keyFrom: { secretKeyRef: { name: secretName, key: expect.any(String) } } });
    expect(webhook.customHeaders).toEqual([{ name: 'X-Token', valueFrom: { secretKeyRef: { name: secretName, key: expect.any(String) } } }]);

    // The Secret holds them, and goes with the resource (the garbage collector follows its owner).
    const secret = (await readSecret(secretName))!;
    expect(secret.data[webhook.hmac.keyFrom.secretKeyRef.key]).toBe(key);
    expect(secret.data[webhook.customHeaders[0].valueFrom.secretKeyRef.key]).toBe(token);
    expect(secret.data[webhook.urlFrom.secretKeyRef.key]).toBe(`${rx.url}?t=${query}`);
    expect(secret.metadata.ownerReferences).toEqual([
      { apiVersion: 'switchboard.dev/v1alpha1', kind: 'MessagingSession', name: 'secretive', uid: resource.metadata.uid, controller: true },
    ]);

    await pod('secretive');
    const hook = await waitFor(() => rx.received.find((r) => r.body.payload.status === 'SCAN_QR_CODE'), 'the signed webhook', 15_000);
    expect(signed(hook, key)).toBe(true);
    expect(hook.headers['x-token']).toBe(token);
    expect(hook.path).toBe(`/hook?t=${query}`);
  });

  it('a PUT that sends "***" back keeps the secrets; a new value replaces them at once, on another replica too', async () => {
    const rx = await receiver();
    const other = await startClusterGateway(cp, NAMESPACE, nats.url);
    stops.push(() => other.close());
    const webhook = {
      url: rx.url,
      events: ['session.status', 'message'],
      hmac: { key: 'first-key' },
      customHeaders: [{ name: 'X-Token', value: 'first-token' }],
    };
    expect((await gw.api('POST', '/api/sessions', { name: 'rotated', config: { webhooks: [webhook] } })).status).toBe(201);
    await pod('rotated');
    await waitFor(() => rx.received.find((r) => r.body.payload.status === 'SCAN_QR_CODE'), 'the first webhook', 15_000);

    // The config as read, sent back with a change elsewhere: the secrets stay.
    const read = (await gw.api('GET', '/api/sessions/rotated')).body.config;
    const kept = await gw.api('PUT', '/api/sessions/rotated', { config: { ...read, metadata: { round: '1' } } });
    expect(kept.status, JSON.stringify(kept.body)).toBe(200);
    expect(kept.body.config.webhooks[0].hmac.key).toBe('***');
    await simulate('rotated', 'scan');
    const working = await waitFor(() => rx.received.find((r) => r.body.payload?.status === 'WORKING'), 'WORKING', 15_000);
    expect(signed(working, 'first-key')).toBe(true);
    expect(working.headers['x-token']).toBe('first-token');

    // Both replicas deliver; every one of them signs with the new key from the first event on.
    const changed = await other.api('PUT', '/api/sessions/rotated', {
      config: { webhooks: [{ ...webhook, hmac: { key: 'second-key' }, customHeaders: [{ name: 'X-Token', value: 'second-token' }] }] },
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    const resource = await cr.read('rotated');
    expect(JSON.stringify(resource)).not.toMatch(/first-|second-/);
    expect(resource.metadata.annotations[ANNOTATIONS.webhookSecretVersion]).toBe(
      (await readSecret(webhookSecretName('rotated')))!.metadata.resourceVersion,
    );
    const before = rx.received.length;
    for (let i = 0; i < 6; i++) await simulate('rotated', 'message');
    const after = await waitFor(() => rx.received.length >= before + 6 && rx.received.slice(before), 'six messages', 15_000);
    for (const hook of after) {
      expect(signed(hook, 'second-key'), hook.raw).toBe(true);
      expect(hook.headers['x-token']).toBe('second-token');
    }
  });

  it("reads a kubectl user's own Secret for delivery and keeps it named through a PUT; a missing Secret is a dead delivery that says which", async () => {
    const [rx, missing] = [await receiver(), await receiver()];
    await createSecret('my-hooks', { hmac: 'users-key', token: 'users-token' });
    await apply(
      manifest('byhand', [
        {
          url: rx.url,
          events: ['session.status'],
          hmac: { keyFrom: { secretKeyRef: { name: 'my-hooks', key: 'hmac' } } },
          customHeaders: [
            { name: 'X-Token', valueFrom: { secretKeyRef: { name: 'my-hooks', key: 'token' } } },
            { name: 'X-Team', value: 'support' },
          ],
        },
        {
          url: missing.url,
          events: ['session.status'],
          retries: { attempts: 1 },
          hmac: { keyFrom: { secretKeyRef: { name: 'absent', key: 'hmac' } } },
        },
      ]),
    );
    const read = await waitFor(async () => {
      const res = await gw.api('GET', '/api/sessions/byhand');
      return res.status === 200 && res.body;
    }, 'the applied session');
    expect(read.config.webhooks[0]).toMatchObject({
      hmac: { key: '***' },
      customHeaders: [
        { name: 'X-Token', value: '***' },
        { name: 'X-Team', value: '***' },
      ],
    });
    expect(read.config.webhooks[1].hmac).toEqual({ key: '***' });

    await pod('byhand');
    const hook = await waitFor(() => rx.received.find((r) => r.body.payload.status === 'SCAN_QR_CODE'), 'the signed webhook', 15_000);
    expect(signed(hook, 'users-key')).toBe(true);
    expect(hook.headers['x-token']).toBe('users-token');
    expect(hook.headers['x-team']).toBe('support');
    const dead = await waitFor(
      async () => {
        const res = await gw.api('GET', '/api/byhand/webhooks/dead');
        return res.body.find((d: any) => d.url === missing.url);
      },
      'the dead delivery',
      15_000,
    );
    expect(dead.lastError).toBe('secret_unavailable');
    expect(logged.some((line) => line.detail === `Secret 'absent' not found in namespace '${NAMESPACE}'`)).toBe(true);
    expect(missing.received).toEqual([]);

    // The config sent back as read: the user's Secret stays what the resource names.
    const put = await gw.api('PUT', '/api/sessions/byhand', { config: read.config });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const resource = await cr.read('byhand');
    expect(resource.spec.config.webhooks[0].hmac).toEqual({ keyFrom: { secretKeyRef: { name: 'my-hooks', key: 'hmac' } } });
    expect(resource.spec.config.webhooks[0].customHeaders[0].valueFrom).toEqual({ secretKeyRef: { name: 'my-hooks', key: 'token' } });
    expect(resource.spec.config.webhooks[1].hmac).toEqual({ keyFrom: { secretKeyRef: { name: 'absent', key: 'hmac' } } });
    // The plain X-Team value moved into the session's own Secret.
    expect(resource.spec.config.webhooks[0].customHeaders[1].valueFrom.secretKeyRef.name).toBe(webhookSecretName('byhand'));
    expect(JSON.stringify(resource)).not.toContain('support');

    // A Secret made afterwards is read by the next attempt, once it lets webhooks read it: the
    // gateway may read any Secret of its namespace, and the label keeps the others out of reach.
    await createSecret('absent', { hmac: 'late-key' }, false);
    expect((await gw.api('POST', '/api/byhand/webhooks/dead/replay', {})).status).toBe(202);
    await waitFor(
      async () => {
        const res = await gw.api('GET', '/api/byhand/webhooks/dead');
        return res.body.find((d: any) => d.url === missing.url && d.deadAt > dead.deadAt);
      },
      'the replay dead again for the label',
      15_000,
    );
    expect(logged.some((line) => line.detail?.includes(`not labelled ${LABELS.webhookSecrets}=true`))).toBe(true);
    const labelled = await cp.fetch(`/api/v1/namespaces/${NAMESPACE}/secrets/absent`, {
      method: 'PATCH',
      body: JSON.stringify({ metadata: { labels: { [LABELS.webhookSecrets]: 'true' } } }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(labelled.status).toBe(200);
    expect((await gw.api('POST', '/api/byhand/webhooks/dead/replay', {})).status).toBe(202);
    // Each of its dead deliveries (one per status event) is sent again, signed.
    await waitFor(async () => (await gw.api('GET', '/api/byhand/webhooks/dead')).body.length === 0, 'no dead delivery left', 15_000);
    expect(missing.received.length).toBeGreaterThan(0);
    for (const late of missing.received) expect(signed(late, 'late-key')).toBe(true);
  });

  it('keeps delivering a resource applied with plain secrets, and the next config write through the API moves them into the Secret', async () => {
    const rx = await receiver();
    await apply(
      manifest('legacy', [
        { url: rx.url, events: ['session.status'], hmac: { key: 'plain-key' }, customHeaders: [{ name: 'X-Token', value: 'plain-token' }] },
      ]),
    );
    const read = await waitFor(async () => {
      const res = await gw.api('GET', '/api/sessions/legacy');
      return res.status === 200 && res.body;
    }, 'the applied session');
    expect(JSON.stringify(read)).not.toMatch(/plain-/);
    await pod('legacy');
    const hook = await waitFor(() => rx.received.find((r) => r.body.payload.status === 'SCAN_QR_CODE'), 'the signed webhook', 15_000);
    expect(signed(hook, 'plain-key')).toBe(true);
    expect(hook.headers['x-token']).toBe('plain-token');

    expect((await gw.api('PUT', '/api/sessions/legacy', { config: read.config })).status).toBe(200);
    const resource = await cr.read('legacy');
    expect(JSON.stringify(resource)).not.toMatch(/plain-/);
    const secret = (await readSecret(webhookSecretName('legacy')))!;
    expect(Object.values(secret.data).sort()).toEqual(['plain-key', 'plain-token']);

    // A config with no secrets left: the Secret goes at once.
    expect((await gw.api('PUT', '/api/sessions/legacy', { config: { webhooks: [{ url: rx.url, events: ['session.status'] }] } })).status).toBe(200);
    expect(await readSecret(webhookSecretName('legacy'))).toBeNull();
  });

  it('keeps a NOWEB proxy\'s password in the session\'s Secret (proxy.passwordFrom), not in the resource; "***" keeps it, no password drops it', async () => {
    const password = 'proxy-password-never-shown';
    const proxy = { server: 'proxy.example.com:3128', username: 'proxy-user' };
    const created = await gw.api('POST', '/api/sessions', {
      name: 'proxied',
      engine: 'NOWEB',
      start: false,
      config: { proxy: { ...proxy, password } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.config.proxy).toEqual({ ...proxy, password: '***' });
    expect((await gw.api('GET', '/api/sessions/proxied')).body.config.proxy).toEqual({ ...proxy, password: '***' });

    const resource = await cr.read('proxied');
    const yaml = await cp.kubectl(['get', 'msess', 'proxied', '-n', NAMESPACE, '-o', 'yaml']);
    for (const text of [JSON.stringify(resource), yaml]) expect(text).not.toContain(password);
    const passwordFrom = { secretKeyRef: { name: webhookSecretName('proxied'), key: 'proxy-password' } };
    expect(resource.spec.config.proxy).toEqual({ ...proxy, passwordFrom });
    expect((await readSecret(webhookSecretName('proxied')))!.data).toEqual({ 'proxy-password': password });

    // Sent back as read, the password stays; a new metadata beside it changes nothing of it.
    const put = await gw.api('PUT', '/api/sessions/proxied', { config: { ...created.body.config, metadata: { a: 'b' } } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect((await cr.read('proxied')).spec.config.proxy).toEqual({ ...proxy, passwordFrom });
    expect((await readSecret(webhookSecretName('proxied')))!.data).toEqual({ 'proxy-password': password });

    // The API server refuses both at once, as for the webhook fields.
    const both = { ...manifest('both-passwords', []), spec: { engine: 'NOWEB', config: { proxy: { ...proxy, password: 'p', passwordFrom } } } };
    await expect(apply(both)).rejects.toThrow(/set at most one of password and passwordFrom/);

    // A proxy without a password needs no Secret: it goes.
    expect((await gw.api('PUT', '/api/sessions/proxied', { config: { proxy } })).status).toBe(200);
    expect((await cr.read('proxied')).spec.config.proxy).toEqual(proxy);
    expect(await readSecret(webhookSecretName('proxied'))).toBeNull();
  });
});
