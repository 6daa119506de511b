import type { Channel, ChannelMessage } from '@switchboard/protocol';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FakeWaServer } from '../fake-wa/index.js';
import type { FakeNewsletter } from '../fake-wa/newsletters.js';
import { type NowebSession, pairedSessionForTests } from './harness.js';

// Channels (newsletters) on NOWEB (issue 16): the unmodified Baileys sends its `w:mex` GraphQL
// queries and `newsletter` iqs to the fake server, which keeps channels as the service does
// (fake-wa/newsletters.ts); the engine maps the answers to the shapes SANDBOX answers.

const paired = pairedSessionForTests();
let s: NowebSession;
let fake: FakeWaServer;
let news: FakeNewsletter;

/** A 1×1 PNG: the engine makes it the JPEG the service takes. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

beforeAll(() => {
  ({ s, fake } = paired);
  news = fake.newsletters.add({ name: 'Harbour News', description: 'Ships in, ships out', verified: true, audience: 1200 });
  fake.newsletters.post(news.id, 'High tide at six', { views: 40, reactions: { '👍': 3 } });
  fake.newsletters.post(news.id, 'Fog warning', { views: 12, reactions: {} });
  fake.newsletters.post(news.id, 'All clear', { views: 7, reactions: { '❤️': 1 } });
});

const run = <T = unknown>(command: Parameters<NowebSession['host']['execute']>[0]) => s.host.execute(command) as Promise<T>;
const me = () => paired.phone.phone;

describe("NOWEB channels: the account's own", () => {
  it('channels.create: the service makes it with the account as OWNER; it is listed and readable by id and by invite code', async () => {
    const made = await run<Channel>({ op: 'channels.create', args: { name: 'Release notes', description: 'Weekly' } });
    expect(made).toMatchObject({ name: 'Release notes', description: 'Weekly', role: 'OWNER', verified: false, subscribersCount: 0 });
    expect(made.id).toMatch(/^\d+@newsletter$/);
    expect(fake.newsletters.get(made.id)?.owner).toBe(me());
    expect(made.invite).toBe(`https://www.whatsapp.com/channel/${fake.newsletters.get(made.id)?.invite}`);
    expect(made.picture).toBeUndefined();

    expect((await run<Channel[]>({ op: 'channels.list', args: {} })).map((c) => c.id)).toContain(made.id);
    expect((await run<Channel[]>({ op: 'channels.list', args: { role: 'SUBSCRIBER' } })).map((c) => c.id)).not.toContain(made.id);
    expect(await run({ op: 'channels.get', args: { channel: { by: 'id', key: made.id } } })).toEqual(made);
    const code = made.invite.split('/').pop()!;
    expect(await run({ op: 'channels.get', args: { channel: { by: 'invite', key: code } } })).toEqual(made);

    // The owner cannot unfollow; it deletes, and then the channel is gone.
    await expect(run({ op: 'channels.unfollow', args: { id: made.id } })).rejects.toMatchObject({ code: 'WRONG_STATUS' });
    await run({ op: 'channels.delete', args: { id: made.id } });
    expect(fake.newsletters.get(made.id)).toBeUndefined();
    await expect(run({ op: 'channels.get', args: { channel: { by: 'id', key: made.id } } })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await run<Channel[]>({ op: 'channels.list', args: {} })).map((c) => c.id)).not.toContain(made.id);
  });

  it('channels.create with a picture: set right after, and the channel shows where it downloads', async () => {
    const made = await run<Channel>({
      op: 'channels.create',
      args: { name: 'Pictured', picture: { mimetype: 'image/png', filename: null, data: PNG.toString('base64') } },
    });
    const path = fake.newsletters.get(made.id)?.picture;
    expect(path).toMatch(/^\/v\//);
    expect(made.picture).toBe(`https://mmg.whatsapp.net${path}`);
  });

  it('channels.create with a file that is no image: 400 naming the picture, and no channel made', async () => {
    const before = (await run<Channel[]>({ op: 'channels.list', args: {} })).length;
    const bad = { mimetype: 'image/jpeg', filename: null, data: Buffer.from('not an image').toString('base64') };
    await expect(run({ op: 'channels.create', args: { name: 'Broken', picture: bad } })).rejects.toMatchObject({ code: 'INVALID' });
    expect(await run<Channel[]>({ op: 'channels.list', args: {} })).toHaveLength(before);
  });
});

describe("NOWEB channels: others'", () => {
  it('follow makes the account a SUBSCRIBER (one more subscriber); mute and unmute reach the service; unfollow makes it a GUEST again', async () => {
    const before = await run<Channel>({ op: 'channels.get', args: { channel: { by: 'id', key: news.id } } });
    expect(before).toMatchObject({ name: 'Harbour News', description: 'Ships in, ships out', verified: true, role: 'GUEST', subscribersCount: 1200 });

    await run({ op: 'channels.follow', args: { id: news.id } });
    expect(await run({ op: 'channels.get', args: { channel: { by: 'id', key: news.id } } })).toMatchObject({
      role: 'SUBSCRIBER',
      subscribersCount: 1201,
    });
    expect((await run<Channel[]>({ op: 'channels.list', args: { role: 'SUBSCRIBER' } })).map((c) => c.id)).toEqual([news.id]);

    await run({ op: 'channels.mute', args: { id: news.id } });
    expect(news.muted.has(me())).toBe(true);
    await run({ op: 'channels.unmute', args: { id: news.id } });
    expect(news.muted.has(me())).toBe(false);

    await expect(run({ op: 'channels.delete', args: { id: news.id } })).rejects.toMatchObject({
      code: 'WRONG_STATUS',
      message: expect.stringContaining('owner'),
    });
    await run({ op: 'channels.unfollow', args: { id: news.id } });
    expect(await run({ op: 'channels.get', args: { channel: { by: 'id', key: news.id } } })).toMatchObject({ role: 'GUEST', subscribersCount: 1200 });
    expect(await run({ op: 'channels.list', args: { role: 'SUBSCRIBER' } })).toEqual([]);
  });

  it('channels.preview: the latest `limit` posts, oldest first, with views and reactions, by id or by invite code', async () => {
    const posts = await run<ChannelMessage[]>({
      op: 'channels.preview',
      args: { channel: { by: 'invite', key: news.invite }, limit: 2, downloadMedia: false },
    });
    expect(posts.map((p) => [p.message.body, p.viewCount, p.reactions])).toEqual([
      ['Fog warning', 12, {}],
      ['All clear', 7, { '❤️': 1 }],
    ]);
    const [first] = posts;
    expect(first?.message).toMatchObject({ from: news.id, fromMe: false, id: `false_${news.id}_${news.posts[1]?.serverId}` });
    const all = await run<ChannelMessage[]>({
      op: 'channels.preview',
      args: { channel: { by: 'id', key: news.id }, limit: 10, downloadMedia: false },
    });
    expect(all.map((p) => p.message.body)).toEqual(['High tide at six', 'Fog warning', 'All clear']);
  });

  it('a channel the service does not know is NOT_FOUND for every operation', async () => {
    const id = '120363999999999999@newsletter';
    await expect(run({ op: 'channels.get', args: { channel: { by: 'id', key: id } } })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(run({ op: 'channels.get', args: { channel: { by: 'invite', key: '0029VaNoSuchCode' } } })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    for (const op of ['channels.follow', 'channels.unfollow', 'channels.mute', 'channels.delete'] as const) {
      await expect(run({ op, args: { id } }), op).rejects.toMatchObject({ code: 'NOT_FOUND' });
    }
    await expect(run({ op: 'channels.preview', args: { channel: { by: 'id', key: id }, limit: 1, downloadMedia: false } })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it("channels.search is not NOWEB's: Baileys has no directory query (422 NOT_SUPPORTED)", async () => {
    await expect(
      run({ op: 'channels.search', args: { by: 'text', text: 'news', categories: [], limit: 10, startCursor: '' } }),
    ).rejects.toMatchObject({ code: 'NOT_SUPPORTED' });
  });
});
