import { expect, it } from 'vitest';
import type { FakeWaServer } from '../../engine-pod/test/fake-wa/index.js';
import { PNG } from './chatting-support.js';
import type { ContractGateway } from './harness.js';

/** What a channels case needs of its file: the gateway, the fake server, the paired session and its phone. */
export interface ChannelsOnEngine {
  readonly gw: ContractGateway;
  readonly fake: FakeWaServer;
  readonly session: string;
  /** The number of the phone that paired the session: the owner and muter the fake sees. */
  readonly phone: string;
}

/**
 * The channel cases every engine that speaks to the fake WhatsApp server passes over the REST
 * surface (noweb-channels.test.ts, gows-channels.test.ts; channels.test.ts runs SANDBOX's own):
 * create, read, delete, follow, mute, the role rules, the posts preview and the search refused.
 * `context` is read when a case runs, after the file's beforeAll has paired the session.
 */
export function channelCasesOnEngine(engine: 'NOWEB' | 'GOWS', context: () => ChannelsOnEngine): void {
  const list = async (query = '') => {
    const { gw, session } = context();
    return (await gw.api('GET', `/api/${session}/channels${query}`)).body as { id: string; role: string }[];
  };

  it('POST creates a channel the account OWNS (201, with its picture on the media host); listed, read by id, invite code and link; DELETE removes it', async () => {
    const { gw, fake, session, phone } = context();
    const made = await gw.api('POST', `/api/${session}/channels`, {
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
    expect(fake.newsletters.get(made.body.id)?.owner).toBe(phone);

    expect((await list('?role=OWNER')).map((c) => c.id)).toContain(made.body.id);
    expect((await gw.api('GET', `/api/${session}/channels/${made.body.id}`)).body).toEqual(made.body);
    const code = made.body.invite.split('/').pop();
    expect((await gw.api('GET', `/api/${session}/channels/${code}`)).body).toEqual(made.body);
    expect((await gw.api('GET', `/api/${session}/channels/${encodeURIComponent(made.body.invite)}`)).body).toEqual(made.body);

    expect((await gw.api('POST', `/api/${session}/channels/${made.body.id}/unfollow`)).status).toBe(422);
    expect((await gw.api('DELETE', `/api/${session}/channels/${made.body.id}`)).status).toBe(200);
    expect((await gw.api('GET', `/api/${session}/channels/${made.body.id}`)).status).toBe(404);
    expect((await list()).map((c) => c.id)).not.toContain(made.body.id);
  });

  it("follow, mute, unmute, unfollow someone else's channel (201 each); the role and count follow; only its owner deletes it (422)", async () => {
    const { gw, fake, session, phone } = context();
    const other = fake.newsletters.add({ name: 'Harbour News', audience: 50, verified: true });
    const read = async () => (await gw.api('GET', `/api/${session}/channels/${other.id}`)).body;
    expect(await read()).toMatchObject({ name: 'Harbour News', role: 'GUEST', subscribersCount: 50, verified: true });
    expect((await gw.api('POST', `/api/${session}/channels/${other.id}/follow`)).status).toBe(201);
    expect(await read()).toMatchObject({ role: 'SUBSCRIBER', subscribersCount: 51 });
    expect((await list('?role=SUBSCRIBER')).map((c) => c.id)).toEqual([other.id]);
    expect((await gw.api('POST', `/api/${session}/channels/${other.id}/mute`)).status).toBe(201);
    expect(other.muted.has(phone)).toBe(true);
    expect((await gw.api('POST', `/api/${session}/channels/${other.id}/unmute`)).status).toBe(201);
    expect(other.muted.size).toBe(0);
    const refused = await gw.api('DELETE', `/api/${session}/channels/${other.id}`);
    expect(refused.status).toBe(422);
    expect(refused.body.message).toContain('owner');
    expect((await gw.api('POST', `/api/${session}/channels/${other.id}/unfollow`)).status).toBe(201);
    expect(await read()).toMatchObject({ role: 'GUEST', subscribersCount: 50 });
    expect((await gw.api('POST', `/api/${session}/channels/120363999999999999@newsletter/follow`)).status).toBe(404);
  });

  it(`preview answers the channel's latest posts with reactions and views; the directory search is 422 on ${engine}`, async () => {
    const { gw, fake, session } = context();
    const other = fake.newsletters.add({ name: 'Tide Tables' });
    fake.newsletters.post(other.id, 'Monday', { views: 9, reactions: { '👍': 2 } });
    fake.newsletters.post(other.id, 'Tuesday', { views: 4 });
    const res = await gw.api('GET', `/api/${session}/channels/${other.invite}/messages/preview?limit=1`);
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(1);
    expect(res.body[0]).toMatchObject({ viewCount: 4, reactions: {}, message: { from: other.id, fromMe: false, body: 'Tuesday' } });
    const all = (await gw.api('GET', `/api/${session}/channels/${other.id}/messages/preview`)).body;
    expect(all.map((post: { message: { body: string }; reactions: object }) => [post.message.body, post.reactions])).toEqual([
      ['Monday', { '👍': 2 }],
      ['Tuesday', {}],
    ]);

    const search = await gw.api('POST', `/api/${session}/channels/search/by-text`, { text: 'tide' });
    expect(search.status).toBe(422);
    expect(search.body.message).toContain(engine);
  });

  it('preview without downloadMedia (false by default): a post with a file comes with hasMedia and media null, nothing downloaded', async () => {
    const { gw, fake, session } = context();
    const other = fake.newsletters.add({ name: 'Harbour Pictures' });
    fake.newsletters.post(other.id, { imageMessage: { directPath: '/v/t62.7119-24/none.jpg', mimetype: 'image/png', caption: 'Dawn' } });
    for (const query of ['', '?downloadMedia=false']) {
      const res = await gw.api('GET', `/api/${session}/channels/${other.id}/messages/preview${query}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject([{ message: { body: 'Dawn', hasMedia: true, media: null } }]);
    }
  });
}
