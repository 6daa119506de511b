import { createHmac } from 'node:crypto';
import { ANNOTATIONS, KV_BUCKETS, LOGOUT_FINALIZER, resourceNameFor, STREAMS } from '@switchboard/protocol';
import { type NatsServer, startNatsServer, waitFor, WebhookReceiver, WsClient } from '@switchboard/testkit';
import { connect, DiscardPolicy, type NatsConnection } from 'nats';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ControlPlane } from '../../../test/e2e/support/control-plane.js';
import { ADMIN_KEY, resourceClient, startClusterGateway, startControlPlane, startEnginePod, type TestClusterGateway } from './kube-support.js';

const NAMESPACE = 'switchboard-test';

describe('ClusterSessionBackend against a real API server', () => {
  let cp: ControlPlane;
  let nats: NatsServer;
  let nc: NatsConnection;
  let gw: TestClusterGateway;
  let cr: ReturnType<typeof resourceClient>;
  const pods: { stop(): Promise<void> }[] = [];

  beforeAll(async () => {
    [cp, nats] = await Promise.all([startControlPlane(NAMESPACE), startNatsServer()]);
    nc = await connect({ servers: nats.url });
    gw = await startClusterGateway(cp, NAMESPACE, nats.url);
    cr = resourceClient(cp, NAMESPACE);
  }, 180_000);

  afterAll(async () => {
    await gw?.close();
    await nc?.close();
    await Promise.all([cp?.stop(), nats?.stop()]);
  }, 60_000);

  afterEach(async () => {
    await Promise.all(pods.splice(0).map((pod) => pod.stop()));
  });

  const pod = async (session: string) => {
    const started = await startEnginePod(nc, session);
    pods.push(started);
    return started;
  };

  describe('4.3 create, read, list', () => {
    it('creates a MessagingSession per session, Running when started, and answers as local mode does', async () => {
      const created = await gw.api('POST', '/api/sessions', { name: 'alpha', config: { metadata: { team: 'a' } } });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({ name: 'alpha', status: 'STARTING', engine: 'SANDBOX', config: { metadata: { team: 'a' } } });

      const resource = await cr.read('alpha');
      expect(resource.metadata.name).toBe('alpha');
      expect(resource.spec).toMatchObject({ engine: 'SANDBOX', desiredState: 'Running', config: { metadata: { team: 'a' } }, apps: [] });
      expect(resource.spec.session).toBeUndefined();

      const read = await gw.api('GET', '/api/sessions/alpha?expand=apps');
      expect(read.status).toBe(200);
      expect(read.body).toEqual({
        name: 'alpha',
        status: 'STARTING',
        engine: 'SANDBOX',
        config: { metadata: { team: 'a' } },
        me: null,
        apps: [],
        presence: {},
        timestamps: { activity: null },
      });
    });

    it('keeps a name Kubernetes cannot hold in spec.session, under a hashed resource name', async () => {
      const created = await gw.api('POST', '/api/sessions', { name: 'My_Session', start: false });
      expect(created.status).toBe(201);
      expect(created.body.status).toBe('STOPPED');
      const resource = await cr.read('My_Session');
      expect(resource.metadata.name).toBe(resourceNameFor('My_Session'));
      expect(resource.metadata.name).toMatch(/^s-[0-9a-f]{16}$/);
      expect(resource.spec).toMatchObject({ session: 'My_Session', desiredState: 'Stopped' });
      expect((await gw.api('GET', '/api/sessions/My_Session')).body.name).toBe('My_Session');
    });

    it('lists STOPPED sessions only with all=true', async () => {
      await gw.api('POST', '/api/sessions', { name: 'listed-running' });
      await gw.api('POST', '/api/sessions', { name: 'listed-stopped', start: false });
      const names = async (query: string) =>
        ((await gw.api('GET', `/api/sessions${query}`)).body as { name: string }[]).map((s) => s.name).filter((n) => n.startsWith('listed-'));
      expect(await names('')).toEqual(['listed-running']);
      expect(await names('?all=true')).toEqual(['listed-running', 'listed-stopped']);
    });

    it('answers 422 for a name that is taken, and 404 for an unknown session', async () => {
      await gw.api('POST', '/api/sessions', { name: 'taken', start: false });
      const again = await gw.api('POST', '/api/sessions', { name: 'taken' });
      expect(again.status).toBe(422);
      expect(again.body).toEqual({
        statusCode: 422,
        error: 'Unprocessable Entity',
        message: "session 'taken' already exists",
        details: { session: 'taken' },
      });

      const notFound = { statusCode: 404, error: 'Not Found', message: "session 'ghost' does not exist", details: { session: 'ghost' } };
      for (const [method, path] of [
        ['GET', '/api/sessions/ghost'],
        ['PUT', '/api/sessions/ghost'],
        ['POST', '/api/sessions/ghost/start'],
        ['POST', '/api/sessions/ghost/stop'],
        ['POST', '/api/sessions/ghost/restart'],
        ['POST', '/api/sessions/ghost/logout'],
        ['GET', '/api/sessions/ghost/me'],
      ] as const) {
        const res = await gw.api(method, path, method === 'PUT' ? {} : undefined);
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.body).toEqual(notFound);
      }
    });

    it('reads a session created through another replica at once, before its informer has seen it', async () => {
      const other = await startClusterGateway(cp, NAMESPACE, nats.url);
      try {
        for (let i = 0; i < 5; i++) {
          expect((await other.api('POST', '/api/sessions', { name: `elsewhere-${i}`, start: false })).status).toBe(201);
          expect((await gw.api('GET', `/api/sessions/elsewhere-${i}`)).status).toBe(200);
          expect((await gw.api('POST', '/api/sessions', { name: `elsewhere-${i}` })).status).toBe(422);
        }
      } finally {
        await other.close();
      }
    });

    it('refuses an engine name outside the interface with the 400 of local mode, storing nothing; WPP, the last built, is created', async () => {
      const res = await gw.api('POST', '/api/sessions', { name: 'telegram', engine: 'TELEGRAM' });
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body)).toContain('engine');
      expect(await cr.read('telegram')).toBeNull();
      expect((await gw.api('POST', '/api/sessions', { name: 'wpp', engine: 'WPP', start: false })).status).toBe(201);
      expect((await cr.read('wpp'))?.spec.engine).toBe('WPP');
    });
  });

  describe('4.3 update', () => {
    it('replaces the fields sent and keeps the others; a removed metadata key is gone', async () => {
      await gw.api('POST', '/api/sessions', { name: 'upd', start: false, config: { metadata: { a: '1', b: '2' }, debug: true } });
      const updated = await gw.api('PUT', '/api/sessions/upd', { config: { metadata: { a: '9' } } });
      expect(updated.status).toBe(200);
      expect(updated.body.config).toEqual({ metadata: { a: '9' } });
      expect((await cr.read('upd')).spec.config).toEqual({ metadata: { a: '9' } });
      expect((await gw.api('GET', '/api/sessions/upd')).body.config).toEqual({ metadata: { a: '9' } });

      const apps = await gw.api('PUT', '/api/sessions/upd', { apps: [{ app: 'calls' }] });
      expect(apps.body.config).toEqual({ metadata: { a: '9' } });
      expect((await cr.read('upd')).spec.apps).toEqual([expect.objectContaining({ app: 'calls' })]);
    });

    it('refuses a body naming another session with 400', async () => {
      await gw.api('POST', '/api/sessions', { name: 'named', start: false });
      const res = await gw.api('PUT', '/api/sessions/named', { name: 'other' });
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual([{ path: 'body.name', reason: 'must match the session in the path' }]);
    });

    it('pushes new metadata to the running engine pod: the next event carries it', async () => {
      const rx = await new WebhookReceiver().start();
      try {
        await gw.api('POST', '/api/sessions', { name: 'meta', config: { webhooks: [{ url: rx.url, events: ['session.status'] }] } });
        const { host } = await pod('meta');
        await waitFor(() => rx.events('session.status').length > 0, 'the first session.status');
        const res = await gw.api('PUT', '/api/sessions/meta', {
          config: { metadata: { tenant: 'acme' }, webhooks: [{ url: rx.url, events: ['session.status'] }] },
        });
        expect(res.status).toBe(200);
        await host.stop();
        const stopped = await waitFor(() => rx.events('session.status').find((e) => e.payload.status === 'STOPPED'), 'STOPPED event');
        expect(stopped.metadata).toEqual({ tenant: 'acme' });
      } finally {
        await rx.stop();
      }
    });
  });

  describe('4.3 start, stop, restart: desired state and annotations for the operator', () => {
    it('start sets desiredState Running and answers STARTING until the operator reports more', async () => {
      await gw.api('POST', '/api/sessions', { name: 'starter', start: false });
      const started = await gw.api('POST', '/api/sessions/starter/start');
      expect(started.status).toBe(201);
      expect(started.body.status).toBe('STARTING');
      expect((await cr.read('starter')).spec.desiredState).toBe('Running');
      expect((await gw.api('POST', '/api/sessions/starter/start')).status).toBe(201);

      await cr.reportStatus('starter', { status: 'SCAN_QR_CODE' });
      await waitFor(async () => (await gw.api('GET', '/api/sessions/starter')).body.status === 'SCAN_QR_CODE', 'the reported status');
    });

    it('stop sets desiredState Stopped and answers once the operator reports STOPPED', async () => {
      await gw.api('POST', '/api/sessions', { name: 'stopper' });
      await cr.reportStatus('stopper', { status: 'WORKING' });
      const operator = (async () => {
        await waitFor(async () => (await cr.read('stopper')).spec.desiredState === 'Stopped', 'the desired state');
        await new Promise((resolve) => setTimeout(resolve, 300));
        await cr.reportStatus('stopper', { status: 'STOPPED' });
      })();
      const stopped = await gw.api('POST', '/api/sessions/stopper/stop');
      await operator;
      expect(stopped.status).toBe(201);
      expect(stopped.body.status).toBe('STOPPED');
      expect((await gw.api('POST', '/api/sessions/stopper/stop')).body.status).toBe('STOPPED');
    });

    it('restart stamps the restart annotation and sets desiredState Running', async () => {
      await gw.api('POST', '/api/sessions', { name: 'restarter', start: false });
      const before = Date.now();
      const restarted = await gw.api('POST', '/api/sessions/restarter/restart');
      expect(restarted.status).toBe(201);
      expect(restarted.body.status).toBe('STARTING');
      const resource = await cr.read('restarter');
      expect(resource.spec.desiredState).toBe('Running');
      const stamp = Date.parse(resource.metadata.annotations[ANNOTATIONS.restartedAt]);
      expect(stamp).toBeGreaterThanOrEqual(before - 1);
    });

    it('start of a FAILED session replaces its pod as restart does; of a running one it changes nothing (issue 12 item 9)', async () => {
      await gw.api('POST', '/api/sessions', { name: 'gave-up' });
      await gw.api('POST', '/api/sessions/gave-up/start');
      expect((await cr.read('gave-up')).metadata.annotations?.[ANNOTATIONS.restartedAt]).toBeUndefined();
      await cr.reportStatus('gave-up', { status: 'FAILED' });
      await waitFor(async () => (await gw.api('GET', '/api/sessions/gave-up')).body.status === 'FAILED', 'FAILED in the session');
      const before = Date.now();
      const started = await gw.api('POST', '/api/sessions/gave-up/start');
      expect(started.status).toBe(201);
      expect(started.body.status).toBe('STARTING');
      const stamp = Date.parse((await cr.read('gave-up')).metadata.annotations[ANNOTATIONS.restartedAt]);
      expect(stamp).toBeGreaterThanOrEqual(before - 1);
    });
  });

  describe('4.3 delete', () => {
    it('marks the resource for logout, deletes it, and answers once the finalizer has let go', async () => {
      await gw.api('POST', '/api/sessions', { name: 'doomed' });
      // The operator's part: its finalizer holds the resource until it has logged out.
      await cr.mergePatch('doomed', { metadata: { finalizers: [LOGOUT_FINALIZER] } });
      let answered = false;
      const deleting = gw.api('DELETE', '/api/sessions/doomed').then((res) => {
        answered = true;
        return res;
      });
      const terminating = await waitFor(async () => {
        const resource = await cr.read('doomed');
        return resource?.metadata.deletionTimestamp ? resource : null;
      }, 'the resource to be terminating');
      expect(terminating.metadata.annotations[ANNOTATIONS.logoutOnDelete]).toBe('true');
      expect((await gw.api('GET', '/api/sessions/doomed')).status).toBe(404);
      const listed = (await gw.api('GET', '/api/sessions?all=true')).body as { name: string }[];
      expect(listed.map((s) => s.name)).not.toContain('doomed');
      expect(answered).toBe(false);

      await cr.jsonPatch('doomed', [{ op: 'remove', path: '/metadata/finalizers' }]);
      const res = await deleting;
      expect(res.status).toBe(200);
      expect(await cr.read('doomed')).toBeNull();
    });

    it('is idempotent: deleting an unknown session answers 200', async () => {
      expect((await gw.api('DELETE', '/api/sessions/never-was')).status).toBe(200);
      await gw.api('POST', '/api/sessions', { name: 'twice', start: false });
      expect((await gw.api('DELETE', '/api/sessions/twice')).status).toBe(200);
      expect((await gw.api('DELETE', '/api/sessions/twice')).status).toBe(200);
      expect((await gw.api('POST', '/api/sessions', { name: 'twice', start: false })).status).toBe(201);
    });

    it("purges the auth state itself when no operator finalizer will, and only that session's", async () => {
      const kv = await nc.jetstream().views.kv(KV_BUCKETS.auth);
      await kv.put('purged.creds.me', '{"paired":true}');
      await kv.put('kept.creds.me', '{"paired":true}');
      await gw.api('POST', '/api/sessions', { name: 'purged', start: false });
      expect((await gw.api('DELETE', '/api/sessions/purged')).status).toBe(200);
      expect(await kv.get('purged.creds.me')).toBeNull();
      expect((await kv.get('kept.creds.me'))?.string()).toBe('{"paired":true}');
    });

    it('a key limited to a session deleted while no gateway ran does not open a later session of the same name', async () => {
      await gw.api('POST', '/api/sessions', { name: 'reborn', start: false });
      const control = (await gw.api('POST', '/api/keys/control', { session: 'reborn' })).body as { id: string; key: string };
      const general = (await gw.api('POST', '/api/keys', { session: 'reborn' })).body as { id: string; key: string };
      const as = (key: string, path: string) => gw.api('GET', path, undefined, key);
      expect((await as(control.key, '/api/sessions/reborn')).status).toBe(200);
      expect((await as(general.key, '/api/sessions/reborn')).status).toBe(200);

      // kubectl delete while no gateway runs: nothing forgets the keys, which stay stored.
      await gw.close();
      await cr.remove('reborn');
      await waitFor(async () => (await cr.read('reborn')) === null, 'the resource to be gone');
      gw = await startClusterGateway(cp, NAMESPACE, nats.url);
      expect((await gw.api('POST', '/api/sessions', { name: 'reborn', start: false })).status).toBe(201);
      const ids = ((await gw.api('GET', '/api/keys')).body as { id: string }[]).map((key) => key.id);
      expect(ids).toEqual(expect.arrayContaining([control.id, general.id]));

      for (const key of [control.key, general.key]) {
        const refused = await as(key, '/api/sessions/reborn');
        expect(refused.status).toBe(403);
        expect(refused.body.message).toContain("earlier session named 'reborn'");
        expect((await as(key, '/api/sessions')).body).toEqual([]);
      }
      // The session's control key is made anew, with a secret that opens it.
      const fresh = await gw.api('POST', '/api/keys/control', { session: 'reborn' });
      expect(fresh.status).toBe(201);
      expect(fresh.body.id).not.toBe(control.id);
      expect((await as(fresh.body.key, '/api/sessions/reborn')).status).toBe(200);
      // A key limited to it from now on opens it.
      const moved = await gw.api('PUT', `/api/keys/${general.id}`, { session: 'reborn' });
      expect(moved.status).toBe(200);
      expect((await as(general.key, '/api/sessions/reborn')).status).toBe(403);
      expect((await gw.api('PUT', `/api/keys/${general.id}`, { session: null })).status).toBe(200);
      expect((await gw.api('PUT', `/api/keys/${general.id}`, { session: 'reborn' })).status).toBe(200);
      expect((await as(general.key, '/api/sessions/reborn')).status).toBe(200);
    });
  });

  describe('4.3 logout', () => {
    it('purges the auth state in NATS KV when no engine pod runs', async () => {
      const kv = await nc.jetstream().views.kv(KV_BUCKETS.auth);
      await kv.put('loggedout.creds.me', '{"paired":true}');
      await gw.api('POST', '/api/sessions', { name: 'loggedout', start: false });
      const res = await gw.api('POST', '/api/sessions/loggedout/logout');
      expect(res.status).toBe(201);
      expect(res.body.status).toBe('STOPPED');
      expect(await kv.get('loggedout.creds.me')).toBeNull();
    });

    it('asks the running engine pod to log out, and answers the status it reports after', async () => {
      await gw.api('POST', '/api/sessions', { name: 'podlogout' });
      const { host } = await pod('podlogout');
      await gw.api('POST', '/api/podlogout/sandbox/simulate', { kind: 'scan' });
      await waitFor(() => host.status === 'WORKING', 'WORKING');
      const res = await gw.api('POST', '/api/sessions/podlogout/logout');
      expect(res.status).toBe(201);
      expect(res.body.status).toBe('SCAN_QR_CODE');
      expect(host.me).toBeNull();
    });

    it('of a stopped session whose pod is still terminating, purges the auth state and leaves the engine alone', async () => {
      await gw.api('POST', '/api/sessions', { name: 'lingering' });
      const { host } = await pod('lingering');
      await gw.api('POST', '/api/lingering/sandbox/simulate', { kind: 'scan' });
      await waitFor(() => host.status === 'WORKING', 'WORKING');
      const kv = await nc.jetstream().views.kv(KV_BUCKETS.auth);
      const authKeys = async () => {
        const keys: string[] = [];
        for await (const key of await kv.keys('lingering.>')) keys.push(key);
        return keys;
      };
      expect(await authKeys()).not.toEqual([]);
      // The operator reports STOPPED as soon as the pod is terminating; its engine may still answer.
      await gw.api('POST', '/api/sessions/lingering/stop');
      await cr.reportStatus('lingering', { status: 'STOPPED' });
      await waitFor(async () => (await gw.api('GET', '/api/sessions/lingering')).body.status === 'STOPPED', 'STOPPED');

      const res = await gw.api('POST', '/api/sessions/lingering/logout');
      expect(res.status).toBe(201);
      expect(res.body.status).toBe('STOPPED');
      expect(await authKeys()).toEqual([]);
      expect(host.status).toBe('WORKING');
    });
  });

  describe('4.1 and 4.5 commands over NATS', () => {
    it('answers 422 with the session status and what the command needs when no engine pod answers', async () => {
      await gw.api('POST', '/api/sessions', { name: 'podless', start: false });
      const send = await gw.api('POST', '/api/sendText', { session: 'podless', chatId: '15550001111@c.us', text: 'hi' });
      expect(send.status).toBe(422);
      expect(send.body).toEqual({
        statusCode: 422,
        error: 'Unprocessable Entity',
        message: "session 'podless' is STOPPED; this needs WORKING",
        details: { session: 'podless', status: 'STOPPED', expected: ['WORKING'] },
      });
      await gw.api('POST', '/api/sessions/podless/start');
      const qr = await gw.api('GET', '/api/podless/auth/qr?format=raw');
      expect(qr.status).toBe(422);
      expect(qr.body.details).toEqual({ session: 'podless', status: 'STARTING', expected: ['SCAN_QR_CODE'] });
    });

    it('runs commands on the engine pod: QR, its own 422, pairing, sending', async () => {
      await gw.api('POST', '/api/sessions', { name: 'chatty' });
      const { host } = await pod('chatty');
      await waitFor(() => host.status === 'SCAN_QR_CODE', 'SCAN_QR_CODE');

      const qr = await gw.api('GET', '/api/chatty/auth/qr?format=raw');
      expect(qr.status).toBe(200);
      expect(typeof qr.body.value).toBe('string');
      const early = await gw.api('POST', '/api/sendText', { session: 'chatty', chatId: '15550001111@c.us', text: 'hi' });
      expect(early.status).toBe(422);
      expect(early.body.details).toEqual({ session: 'chatty', status: 'SCAN_QR_CODE', expected: ['WORKING'] });

      expect((await gw.api('POST', '/api/chatty/sandbox/simulate', { kind: 'scan' })).status).toBe(201);
      await waitFor(() => host.status === 'WORKING', 'WORKING');
      const sent = await gw.api('POST', '/api/sendText', { session: 'chatty', chatId: '15550001111@c.us', text: 'hello' });
      expect(sent.status).toBe(201);
      expect(sent.body).toMatchObject({ fromMe: true, body: 'hello', to: '15550001111@c.us', ack: 0 });
    });

    it('answers 507 to a send whose events the full event stream refuses, refuses the next unrun, and 201 once there is room (issue 12 item 21)', async () => {
      await gw.api('POST', '/api/sessions', { name: 'full' });
      const { host } = await pod('full');
      await waitFor(() => host.status === 'SCAN_QR_CODE', 'SCAN_QR_CODE');
      expect((await gw.api('POST', '/api/full/sandbox/simulate', { kind: 'scan' })).status).toBe(201);
      await waitFor(() => host.status === 'WORKING', 'WORKING');
      const jsm = await nc.jetstreamManager();
      const { config, state } = await jsm.streams.info(STREAMS.events);
      // No room for one more event, and JetStream refuses new messages instead of dropping old ones.
      await jsm.streams.update(STREAMS.events, { ...config, max_bytes: state.bytes, discard: DiscardPolicy.New });
      try {
        const sent = await gw.api('POST', '/api/sendText', { session: 'full', chatId: '15550001111@c.us', text: 'hi' });
        expect(sent.status).toBe(507);
        expect(sent.body).toMatchObject({
          statusCode: 507,
          error: 'Insufficient Storage',
          message: expect.stringMatching(/^the event could not be stored \(maximum bytes exceeded\): the command ran/),
        });
        const next = await gw.api('POST', '/api/sendText', { session: 'full', chatId: '15550001111@c.us', text: 'again' });
        expect(next.status).toBe(507);
        expect(next.body.message).toContain('the command was not run');
        // A read stores nothing: it is served all the while (issue 26, item 7).
        for (const path of [
          '/api/sessions/full/me',
          '/api/full/profile',
          '/api/contacts/all?session=full',
          '/api/contacts/check-exists?session=full&phone=15550001111',
          '/api/full/groups',
          '/api/full/labels',
          '/api/full/new-message-id',
        ]) {
          const read = await gw.api('GET', path);
          expect(read.status, `${path}: ${JSON.stringify(read.body)}`).toBe(200);
        }
        expect((await gw.api('POST', '/api/contacts/check-exists', { session: 'full', phone: '15550001111' })).status).toBe(200);
        expect((await gw.api('POST', '/api/sendText', { session: 'full', chatId: '15550001111@c.us', text: 'after the reads' })).status).toBe(507);
      } finally {
        await jsm.streams.update(STREAMS.events, config);
      }
      const later = async () => (await gw.api('POST', '/api/sendText', { session: 'full', chatId: '15550001111@c.us', text: 'room' })).status === 201;
      await waitFor(later, 'a send answered 201 again', 15_000, 500);
    });

    it('answers /me from the status the operator wrote', async () => {
      await gw.api('POST', '/api/sessions', { name: 'known', start: false });
      expect((await gw.api('GET', '/api/sessions/known/me')).status).toBe(422);
      const me = { id: '15550000000@c.us', pushName: 'Sandbox' };
      await cr.reportStatus('known', { status: 'WORKING', me });
      await waitFor(async () => (await gw.api('GET', '/api/sessions/known')).body.me?.id === me.id, 'me in the session');
      expect((await gw.api('GET', '/api/sessions/known/me')).body).toEqual(me);
    });
  });

  describe('6.1 events from engine pods', () => {
    it("delivers a pod's events to the session webhooks, signed, and to /ws clients", async () => {
      const key = 'cluster-secret';
      const rx = await new WebhookReceiver(key).start();
      const ws = await WsClient.connect(gw.url, `x-api-key=${ADMIN_KEY}&session=evented&events=session.status`);
      try {
        await gw.api('POST', '/api/sessions', {
          name: 'evented',
          config: { webhooks: [{ url: rx.url, events: ['session.status'], hmac: { key } }] },
        });
        await pod('evented');
        const hook = await waitFor(() => rx.events('session.status').find((e) => e.payload.status === 'SCAN_QR_CODE'), 'the webhook');
        expect(rx.received.every((r) => r.hmacValid)).toBe(true);
        const frame = await waitFor(() => ws.events('session.status').find((e) => e.id === hook.id), 'the same event on /ws');
        expect(frame).toEqual(hook);
        const createHook = rx.received.find((r) => r.body.id === hook.id)!;
        expect(createHook.headers['x-webhook-hmac']).toBe(createHmac('sha512', key).update(createHook.raw).digest('hex'));
        await waitFor(async () => (await gw.api('GET', '/api/sessions/evented')).body.timestamps.activity !== null, 'activity');
      } finally {
        ws.close();
        await rx.stop();
      }
    });
  });
});
