// Cluster mode end to end for WEBJS: the operator's engine pod runs whatsapp-web.js in Debian's
// chromium (the node agent runs the Node engine pod for it), which loads the fake WhatsApp Web
// page as its pinned web version; the browser profile is saved in the auth-state store in NATS,
// so a replaced pod resumes the pairing without a QR code.
import { isDeepStrictEqual } from 'node:util';
import { waitFor } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeWebPhone, FakeWhatsAppWeb } from '../../engine-pod/test/fake-web/index.js';
import { LIBRARY_VERSIONS } from '../../engine-pod/test/library-versions.js';
import { rawQr, waitForStatus } from '../contract/harness.js';
import { BROWSER_ENGINE_IMAGE, type ClusterEnvironment, type GatewayProcess, startClusterWithGateway } from './support/cluster-environment.js';

const CONTACT = '15551118888';
let fake: FakeWhatsAppWeb;
let env: ClusterEnvironment;
let gw: GatewayProcess;
let phone: FakeWebPhone;

beforeAll(async () => {
  fake = await FakeWhatsAppWeb.start();
  ({ env, gw } = await startClusterWithGateway({
    namespace: 'switchboard-e2e-webjs',
    engineEnv: fake.engineEnv(),
  }));
}, 300_000);

afterAll(async () => {
  await env?.stop();
  await fake?.close();
});

describe('a WEBJS session in cluster mode, through Chromium on the fake WhatsApp Web', () => {
  it('pairs by the QR code the library read from the page, reaches WORKING and sends a text the phone gets', async () => {
    expect((await gw.api('POST', '/api/sessions', { name: 'browser', engine: 'WEBJS' })).status).toBe(201);
    const qr = await rawQr(gw, 'browser', 60_000);
    phone = await fake.scanQr(qr, { id: '15550008888@c.us', pushName: 'Browser' });
    await waitForStatus(gw, 'browser', 'WORKING', 60_000);
    expect((await gw.api('GET', '/api/sessions/browser/me')).body).toMatchObject({ id: '15550008888@c.us', pushName: 'Browser' });
    // What it runs (issue 31 §1): the pod's image, the installed whatsapp-web.js, the page's version.
    const versions = { image: BROWSER_ENGINE_IMAGE, library: LIBRARY_VERSIONS.WEBJS, client: fake.version };
    await waitFor(async () => isDeepStrictEqual((await env.resource('browser')).status.versions, versions), 'the resource versions', 30_000);
    expect((await gw.api('GET', '/api/sessions/browser')).body.versions).toEqual(versions);
    const sent = await gw.api('POST', '/api/sendText', { session: 'browser', chatId: `${CONTACT}@c.us`, text: 'hello from a WEBJS pod' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    await waitFor(() => phone.sentTo(`${CONTACT}@c.us`).some((m) => m.body === 'hello from a WEBJS pod'), 'the text on the phone');
  });

  it('receives: a message from the contact reaches the history the gateway serves, beside the one sent', async () => {
    const inbound = phone.text(CONTACT, 'hello back, browser');
    const history = async () =>
      (await gw.api('GET', `/api/browser/chats/${CONTACT}@c.us/messages?sortOrder=asc&limit=100`)).body as unknown as { id: string; body: string }[];
    await waitFor(
      async () => (await history()).some((m) => m.id === `false_${CONTACT}@c.us_${inbound}`),
      'the received message in the history',
      30_000,
    );
    expect((await history()).map((m) => m.body)).toEqual(['hello from a WEBJS pod', 'hello back, browser']);
  });

  it('sends an image through the pod: the bytes the phone side got are the image, at the direct path of the message', async () => {
    const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
    const file = { mimetype: 'image/png', filename: 'dot.png', data: png.toString('base64') };
    const sent = await gw.api('POST', '/api/sendImage', { session: 'browser', chatId: `${CONTACT}@c.us`, file, caption: 'a dot' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    const message = await waitFor(() => phone.sentTo(`${CONTACT}@c.us`).find((m) => m.type === 'image' && m.caption === 'a dot'), 'the image');
    const upload = phone.uploads.find((candidate) => candidate.directPath === message.directPath);
    expect(upload?.data.equals(png), 'the uploaded bytes are the image sent').toBe(true);
  });

  it('creates a group through the pod: the server has it with its members, and the API answers it', async () => {
    const created = await gw.api('POST', '/api/browser/groups', { name: 'Cluster crew', participants: [{ id: `${CONTACT}@c.us` }] });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    expect(phone.groups.get(id)?.subject).toBe('Cluster crew');
    expect([...phone.groups.get(id)!.participants.keys()].sort()).toEqual(['15550008888@c.us', `${CONTACT}@c.us`]);
    expect((await gw.api('GET', `/api/browser/groups/${id}`)).body).toMatchObject({ id, subject: 'Cluster crew' });
  });

  it('sends an event message through the pod: the phone gets the event, and no WhatsApp call link was made for it', async () => {
    const event = { name: 'Cluster launch', startTime: 2_063_137_000, location: { name: 'Office' } };
    const sent = await gw.api('POST', '/api/browser/events', { chatId: `${CONTACT}@c.us`, event });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    const message = await waitFor(() => phone.sentTo(`${CONTACT}@c.us`).find((m) => m.type === 'event_creation'), 'the event');
    expect(message).toMatchObject({ eventName: 'Cluster launch', eventStartTime: 2_063_137_000, eventLocation: { name: 'Office' } });
    expect(message.eventJoinLink ?? null).toBeNull();
    expect(phone.callLinks).toEqual([]);
  });

  it('a deleted engine pod is replaced and resumes from the profile in the auth-state store: WORKING again without a QR code', async () => {
    const [old] = await env.enginePods('browser');
    const qrsBefore = fake.refs().length;
    await env.cp.kubectl(['delete', 'pod', old!.name, '-n', env.namespace, '--wait=false']);
    await waitFor(async () => (await env.enginePods('browser')).some((pod) => pod.uid !== old!.uid && pod.ready), 'a new ready engine pod', 90_000);
    await waitForStatus(gw, 'browser', 'WORKING', 60_000);
    expect(fake.refs().length).toBe(qrsBefore);
    expect(fake.connected().signedIn).toBe(1);
    const sent = await gw.api('POST', '/api/sendText', { session: 'browser', chatId: `${CONTACT}@c.us`, text: 'from the replacement' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    await waitFor(() => phone.sentTo(`${CONTACT}@c.us`).some((m) => m.body === 'from the replacement'), 'the text on the phone');
  });
});
