import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Channel, type ChannelMessage, Channel as ChannelSchema, ChannelMessage as ChannelMessageSchema } from '@switchboard/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakePhone, FakeWaServer } from '../fake-wa/index.js';
import type { FakeNewsletter } from '../fake-wa/newsletters.js';
import { buildGows, closeChecked, fakeServerDriver, type GowsDriver, pairWithFake } from './driver.js';

/**
 * Channels on GOWS (engines/gows/internal/engine/channels.go), as NOWEB does them (engine-pod/test/noweb/channels.test.ts):
 * whatsmeow's `w:mex` GraphQL queries and `newsletter` iqs against the fake server's channels
 * (fake-wa/newsletters.ts), answered in the interface's shapes, which each answer is parsed against.
 */
let fake: FakeWaServer;
let binary: string;
let gows: GowsDriver;
let phone: FakePhone;
let news: FakeNewsletter;
const authDir = mkdtempSync(join(tmpdir(), 'sb-gows-channels-'));
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

beforeAll(async () => {
  [fake, binary] = await Promise.all([FakeWaServer.start({ signal: true }), buildGows()]);
  gows = fakeServerDriver(binary, fake, 'gows-channels', { authDir });
  phone = await pairWithFake(gows, fake, 'gows-channels');
  news = fake.newsletters.add({ name: 'Harbour News', description: 'Ships in, ships out', verified: true, audience: 1200 });
  fake.newsletters.post(news.id, 'High tide at six', { views: 40, reactions: { '👍': 3 } });
  fake.newsletters.post(news.id, 'Fog warning', { views: 12 });
}, 180_000);

afterAll(() => closeChecked(gows, fake));

const channel = async (params: unknown) => ChannelSchema.parse(await gows.request('channel', params));
const list = async (role?: string) => (await gows.request<Channel[]>('channels', role ? { role } : {})).map((c) => ChannelSchema.parse(c));

describe('GOWS channels', () => {
  it('createChannel (with a picture): the account OWNS it; listed, read by id and by invite code; deleteChannel removes it', async () => {
    const made = ChannelSchema.parse(
      await gows.request('createChannel', {
        name: 'Release notes',
        description: 'Weekly',
        picture: { mimetype: 'image/png', filename: null, data: PNG.toString('base64') },
      }),
    );
    expect(made).toMatchObject({ name: 'Release notes', description: 'Weekly', role: 'OWNER', verified: false, subscribersCount: 0 });
    const kept = fake.newsletters.get(made.id);
    expect(kept?.owner).toBe(phone.phone);
    expect(made.picture).toBe(`https://mmg.whatsapp.net${kept?.picture}`);
    expect(made.invite).toBe(`https://www.whatsapp.com/channel/${kept?.invite}`);
    expect((await list('OWNER')).map((c) => c.id)).toEqual([made.id]);
    expect(await channel({ by: 'id', key: made.id })).toEqual(made);
    expect(await channel({ by: 'invite', key: kept?.invite })).toEqual(made);
    expect(await gows.failureCode('unfollowChannel', { id: made.id })).toBe('WRONG_STATUS');

    // Deleting: WhatsApp Web's mutation, which whatsmeow has no function for; then the channel is gone.
    await gows.request('deleteChannel', { id: made.id });
    expect(fake.newsletters.get(made.id)).toBeUndefined();
    expect(await gows.failureCode('channel', { by: 'id', key: made.id })).toBe('NOT_FOUND');
    expect(await list('OWNER')).toEqual([]);
  });

  it('follow, mute, unmute, unfollow: the role and the count follow the service', async () => {
    expect(await channel({ by: 'id', key: news.id })).toMatchObject({
      role: 'GUEST',
      subscribersCount: 1200,
      verified: true,
      description: 'Ships in, ships out',
    });
    await gows.request('followChannel', { id: news.id });
    expect(await channel({ by: 'id', key: news.id })).toMatchObject({ role: 'SUBSCRIBER', subscribersCount: 1201 });
    expect((await list('SUBSCRIBER')).map((c) => c.id)).toEqual([news.id]);
    await gows.request('muteChannel', { id: news.id });
    expect(news.muted.has(phone.phone)).toBe(true);
    await gows.request('unmuteChannel', { id: news.id });
    expect(news.muted.size).toBe(0);
    expect(await gows.failureCode('deleteChannel', { id: news.id })).toBe('WRONG_STATUS');
    await gows.request('unfollowChannel', { id: news.id });
    expect(await channel({ by: 'id', key: news.id })).toMatchObject({ role: 'GUEST', subscribersCount: 1200 });
  });

  it('channelPosts: the latest `limit` posts, oldest first, with views and reactions', async () => {
    const posts = (
      await gows.request<ChannelMessage[]>('channelPosts', { channel: { by: 'invite', key: news.invite }, limit: 5, downloadMedia: false })
    ).map((p) => ChannelMessageSchema.parse(p));
    expect(posts.map((p) => [p.message.body, p.viewCount, p.reactions])).toEqual([
      ['High tide at six', 40, { '👍': 3 }],
      ['Fog warning', 12, {}],
    ]);
    expect(posts[0]?.message).toMatchObject({ from: news.id, fromMe: false, id: `false_${news.id}_${news.posts[0]?.serverId}` });
  });

  it('a channel the service does not know is NOT_FOUND', async () => {
    const id = '120363999999999999@newsletter';
    expect(await gows.failureCode('channel', { by: 'id', key: id })).toBe('NOT_FOUND');
    expect(await gows.failureCode('followChannel', { id })).toBe('NOT_FOUND');
    expect(await gows.failureCode('channelPosts', { channel: { by: 'id', key: id }, limit: 1 })).toBe('NOT_FOUND');
  });
});
