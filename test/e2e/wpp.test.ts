// Cluster mode end to end for WPP: the operator's engine pod runs WPPConnect (wa-js injected) in
// Debian's chromium (the node agent runs the Node engine pod for it), on the same fake WhatsApp Web
// page WEBJS loads; the browser profile and the copy of the page's Local Storage are saved in the
// auth-state store in NATS, so a replaced pod resumes the pairing without a QR code. Received
// files are kept in the cluster's media store and served by the gateway.
import { isDeepStrictEqual } from 'node:util';
import { waitFor } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeWebPhone, FakeWhatsAppWeb } from '../../engine-pod/test/fake-web/index.js';
import { LIBRARY_VERSIONS } from '../../engine-pod/test/library-versions.js';
import { rawQr, waitForStatus } from '../contract/harness.js';
import {
  ADMIN_KEY,
  BROWSER_ENGINE_IMAGE,
  type ClusterEnvironment,
  type GatewayProcess,
  startClusterWithGateway,
} from './support/cluster-environment.js';

const CONTACT = '15551119999';
let fake: FakeWhatsAppWeb;
let env: ClusterEnvironment;
let gw: GatewayProcess;
let phone: FakeWebPhone;

beforeAll(async () => {
  fake = await FakeWhatsAppWeb.start();
  ({ env, gw } = await startClusterWithGateway({
    namespace: 'switchboard-e2e-wpp',
    engineEnv: fake.engineEnv(),
  }));
}, 300_000);

afterAll(async () => {
  await env?.stop();
  await fake?.close();
});

describe('a WPP session in cluster mode, through Chromium on the fake WhatsApp Web', () => {
  it('pairs by the QR code WPPConnect read from the page, reaches WORKING and sends a text the phone gets', async () => {
    expect((await gw.api('POST', '/api/sessions', { name: 'wpp', engine: 'WPP' })).status).toBe(201);
    const qr = await rawQr(gw, 'wpp', 60_000);
    phone = await fake.scanQr(qr, { id: '15550009191@c.us', pushName: 'Connect' });
    await waitForStatus(gw, 'wpp', 'WORKING', 60_000);
    expect((await gw.api('GET', '/api/sessions/wpp/me')).body).toMatchObject({ id: '15550009191@c.us', pushName: 'Connect' });
    // What it runs (issue 31 §1): the pod's image, the installed WPPConnect, the page's version.
    const versions = { image: BROWSER_ENGINE_IMAGE, library: LIBRARY_VERSIONS.WPP, client: fake.version };
    await waitFor(async () => isDeepStrictEqual((await env.resource('wpp')).status.versions, versions), 'the resource versions', 30_000);
    expect((await gw.api('GET', '/api/sessions/wpp')).body.versions).toEqual(versions);
    const sent = await gw.api('POST', '/api/sendText', { session: 'wpp', chatId: `${CONTACT}@c.us`, text: 'hello from a WPP pod' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    expect(sent.body).toMatchObject({ fromMe: true, source: 'api', body: 'hello from a WPP pod', ackName: 'PENDING' });
    await waitFor(() => phone.sentTo(`${CONTACT}@c.us`).some((m) => m.body === 'hello from a WPP pod'), 'the text on the phone');
  });

  it('receives: a message from the contact reaches the history the gateway serves, beside the one sent', async () => {
    const inbound = phone.text(CONTACT, 'hello back, WPP');
    const history = async () =>
      (await gw.api('GET', `/api/wpp/chats/${CONTACT}@c.us/messages?sortOrder=asc&limit=100`)).body as unknown as { id: string; body: string }[];
    await waitFor(
      async () => (await history()).some((m) => m.id === `false_${CONTACT}@c.us_${inbound}`),
      'the received message in the history',
      30_000,
    );
    expect((await history()).map((m) => m.body)).toEqual(['hello from a WPP pod', 'hello back, WPP']);
  });

  it("reacts through the pod: the phone told, the answer the reaction's payload", async () => {
    const target = phone.text(CONTACT, 'react to this, WPP');
    const messageId = `false_${CONTACT}@c.us_${target}`;
    await waitFor(
      async () =>
        ((await gw.api('GET', `/api/wpp/chats/${CONTACT}@c.us/messages?limit=100`)).body as unknown as { id: string }[]).some(
          (m) => m.id === messageId,
        ),
      'the message in the history',
      30_000,
    );
    const res = await gw.api('PUT', '/api/reaction', { session: 'wpp', messageId, reaction: '👍' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ fromMe: true, source: 'api', reaction: { text: '👍', messageId } });
    expect(phone.actions).toContainEqual(expect.objectContaining({ type: 'react', msgId: messageId, reaction: '👍' }));
  });

  it('what WPP cannot do is a 422 from the catalog, before anything reaches the pod', async () => {
    const res = await gw.api('POST', '/api/sendPollVote', {
      session: 'wpp',
      chatId: `${CONTACT}@c.us`,
      pollMessageId: `true_${CONTACT}@c.us_3EB0AAAAAAAAAAAAAAAA`,
      votes: ['a'],
    });
    expect(res.status).toBe(422);
    expect(res.body.message).toContain('engine WPP does not support poll votes');
  });

  it('files through the pod: an image sent is the bytes uploaded, and a file received downloads from its media URL byte for byte', async () => {
    const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
    const file = { mimetype: 'image/png', filename: 'dot.png', data: png.toString('base64') };
    const sent = await gw.api('POST', '/api/sendImage', { session: 'wpp', chatId: `${CONTACT}@c.us`, file, caption: 'a dot' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    const message = await waitFor(() => phone.sentTo(`${CONTACT}@c.us`).find((m) => m.type === 'image' && m.caption === 'a dot'), 'the image');
    expect(phone.uploads.find((candidate) => candidate.directPath === message.directPath)?.data.equals(png), 'the uploaded bytes are the image').toBe(
      true,
    );

    const pdf = Buffer.from('%PDF-1.4 a plan kept in the cluster');
    const inbound = phone.media(CONTACT, { type: 'document', mimetype: 'application/pdf', data: pdf, filename: 'plan.pdf' });
    const received = await waitFor(
      async () =>
        (
          (await gw.api('GET', `/api/wpp/chats/${CONTACT}@c.us/messages?sortOrder=asc&limit=100`)).body as unknown as {
            id: string;
            media: { url: string } | null;
          }[]
        ).find((m) => m.id === `false_${CONTACT}@c.us_${inbound}` && m.media),
      'the received file in the history, with its media',
      30_000,
    );
    const download = await fetch(gw.url + new URL(received.media!.url).pathname, { headers: { 'x-api-key': ADMIN_KEY } });
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(pdf), 'the downloaded bytes are the file the contact sent').toBe(true);
  });

  it('a deleted engine pod is replaced and resumes from the profile in the auth-state store: WORKING again without a QR code', async () => {
    const [old] = await env.enginePods('wpp');
    const qrsBefore = fake.refs().length;
    await env.cp.kubectl(['delete', 'pod', old!.name, '-n', env.namespace, '--wait=false']);
    await waitFor(async () => (await env.enginePods('wpp')).some((pod) => pod.uid !== old!.uid && pod.ready), 'a new ready engine pod', 90_000);
    await waitForStatus(gw, 'wpp', 'WORKING', 60_000);
    expect(fake.refs().length).toBe(qrsBefore);
    expect(fake.connected().signedIn).toBe(1);
    const sent = await gw.api('POST', '/api/sendText', { session: 'wpp', chatId: `${CONTACT}@c.us`, text: 'from the replacement' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    await waitFor(() => phone.sentTo(`${CONTACT}@c.us`).some((m) => m.body === 'from the replacement'), 'the text on the phone');
  });
});
