import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { FakeWaServer } from '../../engine-pod/test/fake-wa/index.js';
import { PNG } from './chatting-support.js';
import { type ContractGateway, mode, startGateway, waitForStatus } from './harness.js';

/**
 * Channels (newsletters) on a NOWEB session over the REST surface (issue 16), against the fake
 * WhatsApp server's channels (engine-pod/test/fake-wa/newsletters.ts), which a phone of the test
 * pairs by QR code; channels.test.ts covers the same routes on SANDBOX, and its directory search,
 * which NOWEB refuses. Cluster mode: NOWEB engine pods dial the port the suite's setup fixed
 * (test/e2e/support/contract-cluster-setup.ts), where this file starts its fake.
 */
const S = 'noweb-channels';
let fake: FakeWaServer;
let gw: ContractGateway;

describe(`channels on a NOWEB session over the REST surface (${mode} mode)`, () => {
  beforeAll(async () => {
    const port = mode === 'cluster' ? inject('nowebFake').port : undefined;
    fake = await FakeWaServer.start({ port });
    if (mode === 'local') process.env.SWITCHBOARD_NOWEB_WS_URL = fake.url;
    gw = await startGateway();
    expect((await gw.api('POST', '/api/sessions', { name: S, engine: 'NOWEB' })).status).toBe(201);
    await waitForStatus(gw, S, 'SCAN_QR_CODE', 30_000);
    const qr = await gw.api('GET', `/api/${S}/auth/qr?format=raw`);
    await fake.scanQr(qr.body.value as string, { phone: '15550006666', pushName: 'Nora' });
    await waitForStatus(gw, S, 'WORKING', 30_000);
  }, 180_000);
  afterAll(async () => {
    await gw?.close();
    await fake?.close();
    delete process.env.SWITCHBOARD_NOWEB_WS_URL;
  });

  const list = async (query = '') => (await gw.api('GET', `/api/${S}/channels${query}`)).body as { id: string; role: string }[];

  it('POST creates a channel the account OWNS (201, with its picture on the media host); listed, read by id, invite code and link; DELETE removes it', async () => {
    const made = await gw.api('POST', `/api/${S}/channels`, {
      name: 'Release notes',
      description: 'What changed, weekly',
      picture: { mimetype: 'image/png', data: PNG.toString('base64') },
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      name: 'Release notes',
      description: 'What changed, weekly',
      role: 'OWNER',
      verified: false,
      subscribersCount: 0,
    });
    expect(made.body.id).toMatch(/^\d+@newsletter$/);
    expect(made.body.invite).toMatch(/^https:\/\/www\.whatsapp\.com\/channel\/[0-9A-Za-z]+$/);
    expect(made.body.picture).toMatch(/^https:\/\/mmg\.whatsapp\.net\/v\//);
    expect(fake.newsletters.get(made.body.id)?.owner).toBe('15550006666');

    expect((await list('?role=OWNER')).map((c) => c.id)).toContain(made.body.id);
    expect((await gw.api('GET', `/api/${S}/channels/${made.body.id}`)).body).toEqual(made.body);
    const code = made.body.invite.split('/').pop();
    expect((await gw.api('GET', `/api/${S}/channels/${code}`)).body).toEqual(made.body);
    expect((await gw.api('GET', `/api/${S}/channels/${encodeURIComponent(made.body.invite)}`)).body).toEqual(made.body);

    expect((await gw.api('POST', `/api/${S}/channels/${made.body.id}/unfollow`)).status).toBe(422);
    expect((await gw.api('DELETE', `/api/${S}/channels/${made.body.id}`)).status).toBe(200);
    expect((await gw.api('GET', `/api/${S}/channels/${made.body.id}`)).status).toBe(404);
    expect((await list()).map((c) => c.id)).not.toContain(made.body.id);
  });

  it("follow, mute, unmute, unfollow someone else's channel (201 each); the role and count follow; only its owner deletes it (422)", async () => {
    const other = fake.newsletters.add({ name: 'Harbour News', audience: 50, verified: true });
    const read = async () => (await gw.api('GET', `/api/${S}/channels/${other.id}`)).body;
    expect(await read()).toMatchObject({ name: 'Harbour News', role: 'GUEST', subscribersCount: 50, verified: true });
    expect((await gw.api('POST', `/api/${S}/channels/${other.id}/follow`)).status).toBe(201);
    expect(await read()).toMatchObject({ role: 'SUBSCRIBER', subscribersCount: 51 });
    expect((await list('?role=SUBSCRIBER')).map((c) => c.id)).toEqual([other.id]);
    expect((await gw.api('POST', `/api/${S}/channels/${other.id}/mute`)).status).toBe(201);
    expect(other.muted.has('15550006666')).toBe(true);
    expect((await gw.api('POST', `/api/${S}/channels/${other.id}/unmute`)).status).toBe(201);
    expect(other.muted.size).toBe(0);
    const refused = await gw.api('DELETE', `/api/${S}/channels/${other.id}`);
    expect(refused.status).toBe(422);
    expect(refused.body.message).toContain('owner');
    expect((await gw.api('POST', `/api/${S}/channels/${other.id}/unfollow`)).status).toBe(201);
    expect(await read()).toMatchObject({ role: 'GUEST', subscribersCount: 50 });
    expect((await gw.api('POST', `/api/${S}/channels/120363999999999999@newsletter/follow`)).status).toBe(404);
  });

  it("preview answers the channel's latest posts with reactions and views; the directory search is 422 on NOWEB", async () => {
    const other = fake.newsletters.add({ name: 'Tide Tables' });
    fake.newsletters.post(other.id, 'Monday', { views: 9, reactions: { '👍': 2 } });
    fake.newsletters.post(other.id, 'Tuesday', { views: 4 });
    const res = await gw.api('GET', `/api/${S}/channels/${other.invite}/messages/preview?limit=1`);
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(1);
    expect(res.body[0]).toMatchObject({ viewCount: 4, reactions: {}, message: { from: other.id, fromMe: false, body: 'Tuesday' } });
    const all = (await gw.api('GET', `/api/${S}/channels/${other.id}/messages/preview`)).body;
    expect(all.map((post: { message: { body: string }; reactions: object }) => [post.message.body, post.reactions])).toEqual([
      ['Monday', { '👍': 2 }],
      ['Tuesday', {}],
    ]);

    const search = await gw.api('POST', `/api/${S}/channels/search/by-text`, { text: 'tide' });
    expect(search.status).toBe(422);
    expect(search.body.message).toContain('NOWEB');
  });

  it('preview without downloadMedia (false by default): a post with a file comes with hasMedia and media null, nothing downloaded', async () => {
    const other = fake.newsletters.add({ name: 'Harbour Pictures' });
    fake.newsletters.post(other.id, { imageMessage: { directPath: '/v/t62.7119-24/none.jpg', mimetype: 'image/png', caption: 'Dawn' } });
    for (const query of ['', '?downloadMedia=false']) {
      const res = await gw.api('GET', `/api/${S}/channels/${other.id}/messages/preview${query}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject([{ message: { body: 'Dawn', hasMedia: true, media: null } }]);
    }
  });
});
