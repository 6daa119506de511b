import { Channel, ChannelListResult } from '@switchboard/protocol';
import { describe, expect, it } from 'vitest';
import { channelData, structures } from './library-shapes.js';
import { webjsSession } from './harness.js';

// Channels (newsletters) on WEBJS: whatsapp-web.js's getChannels, getChatById of a @newsletter id,
// getChannelByInviteCode, createChannel, deleteChannel, subscribeToChannel, unsubscribeFromChannel
// and Channel.mute / unmute, the scripted client answering as the library does.

const OWNED = '120363000000000001@newsletter';
const FOLLOWED = '120363000000000002@newsletter';
const STRANGER = '120363000000000003@newsletter';
const PNG = Buffer.from('89504e470d0a1a0a', 'hex').toString('base64');

async function working() {
  const s = webjsSession();
  await s.working();
  s.client.channels.set(OWNED, channelData(OWNED, 'Mine', 'owner', '0029VaOWNED1'));
  s.client.channels.set(FOLLOWED, channelData(FOLLOWED, 'News', 'subscriber', '0029VaNEWS01'));
  s.client.channels.set(STRANGER, channelData(STRANGER, 'Elsewhere', 'guest', '0029VaGUEST1'));
  const run = <T>(command: Parameters<typeof s.host.execute>[0]) => s.host.execute(command) as Promise<T>;
  const argsOf = (call: string) => s.client.args[s.client.calls.lastIndexOf(call)];
  return { ...s, run, argsOf };
}

describe('WEBJS channels', () => {
  it('list: getChannels in the interface shape, with the role WhatsApp Web gives; role filters', async () => {
    const s = await working();
    const all = await s.run<Channel[]>({ op: 'channels.list', args: {} });
    expect(all.map((channel) => Channel.parse(channel))).toEqual([
      {
        id: OWNED,
        name: 'Mine',
        invite: 'https://www.whatsapp.com/channel/0029VaOWNED1',
        description: 'about Mine',
        verified: false,
        subscribersCount: 42,
        role: 'OWNER',
      },
      expect.objectContaining({ id: FOLLOWED, role: 'SUBSCRIBER' }),
      expect.objectContaining({ id: STRANGER, role: 'GUEST' }),
    ]);
    expect(await s.run<Channel[]>({ op: 'channels.list', args: { role: 'SUBSCRIBER' } })).toEqual([expect.objectContaining({ id: FOLLOWED })]);
  });

  it('get: by id (getChatById) and by invite (getChannelByInviteCode); one WhatsApp Web does not know is NOT_FOUND', async () => {
    const s = await working();
    expect(await s.run({ op: 'channels.get', args: { channel: { by: 'id', key: FOLLOWED } } })).toMatchObject({ id: FOLLOWED, name: 'News' });
    expect(await s.run({ op: 'channels.get', args: { channel: { by: 'invite', key: '0029VaOWNED1' } } })).toMatchObject({ id: OWNED, role: 'OWNER' });
    expect(s.client.calls).toContain('getChannelByInviteCode 0029VaOWNED1');
    for (const channel of [
      { by: 'id', key: '120363999999999999@newsletter' },
      { by: 'invite', key: '0029VaNOSUCH1' },
    ] as const) {
      await expect(s.run({ op: 'channels.get', args: { channel } })).rejects.toMatchObject({ code: 'NOT_FOUND', details: { channel: channel.key } });
    }
  });

  it('create: createChannel with the description and the picture as a MessageMedia; the new channel is the account`s', async () => {
    const s = await working();
    const created = await s.run<Channel>({
      op: 'channels.create',
      args: { name: 'Launch', description: 'What we ship', picture: { mimetype: 'image/png', data: PNG } },
    });
    expect(Channel.parse(created)).toEqual({
      id: '1203630100003@newsletter',
      name: 'Launch',
      invite: 'https://www.whatsapp.com/channel/0029VaNEW100003',
      description: 'What we ship',
      verified: false,
      subscribersCount: 0,
      role: 'OWNER',
    });
    const [title, options] = s.argsOf('createChannel') as [string, { description: string; picture: unknown }];
    expect(title).toBe('Launch');
    expect(options.description).toBe('What we ship');
    expect(options.picture).toBeInstanceOf(structures.MessageMedia);
    expect(options.picture).toMatchObject({ mimetype: 'image/png', data: PNG });

    s.client.channelCreationError = 'CreateChannelError: A channel creation is not enabled';
    await expect(s.run({ op: 'channels.create', args: { name: 'Again' } })).rejects.toMatchObject({
      code: 'ENGINE_ERROR',
      message: "WEBJS could not create channel 'Again': CreateChannelError: A channel creation is not enabled",
    });
  });

  it('follow, unfollow, mute, unmute: the library`s calls; its owner cannot unfollow, a guest`s unfollow changes nothing', async () => {
    const s = await working();
    await s.run({ op: 'channels.follow', args: { id: STRANGER } });
    expect(s.client.calls).toContain(`subscribeToChannel ${STRANGER}`);
    expect(await s.run({ op: 'channels.get', args: { channel: { by: 'id', key: STRANGER } } })).toMatchObject({ role: 'SUBSCRIBER' });
    await s.run({ op: 'channels.unfollow', args: { id: STRANGER } });
    expect(s.client.calls).toContain(`unsubscribeFromChannel ${STRANGER}`);
    const before = s.client.calls.length;
    await s.run({ op: 'channels.unfollow', args: { id: STRANGER } });
    expect(s.client.calls.slice(before).filter((call) => call.startsWith('unsubscribe'))).toEqual([]);
    await expect(s.run({ op: 'channels.unfollow', args: { id: OWNED } })).rejects.toMatchObject({
      code: 'WRONG_STATUS',
      message: `channel ${OWNED}: its owner cannot unfollow it; delete it instead`,
      details: { channel: OWNED, role: 'OWNER' },
    });

    await s.run({ op: 'channels.mute', args: { id: FOLLOWED } });
    await s.run({ op: 'channels.unmute', args: { id: FOLLOWED } });
    expect(s.client.calls.filter((call) => call.includes('muteChannel'))).toEqual([`muteChannel ${FOLLOWED}`, `unmuteChannel ${FOLLOWED}`]);
    s.client.channelsAccepted = false;
    await expect(s.run({ op: 'channels.mute', args: { id: FOLLOWED } })).rejects.toMatchObject({
      code: 'ENGINE_ERROR',
      message: `WEBJS could not mute channel ${FOLLOWED}: WhatsApp Web refused`,
    });
  });

  it('delete: deleteChannel for its owner; not the owner is WRONG_STATUS naming the role, and nothing is asked', async () => {
    const s = await working();
    await expect(s.run({ op: 'channels.delete', args: { id: FOLLOWED } })).rejects.toMatchObject({
      code: 'WRONG_STATUS',
      message: `channel ${FOLLOWED}: only its owner may delete it; the account is its SUBSCRIBER`,
    });
    expect(s.client.calls.filter((call) => call.startsWith('deleteChannel'))).toEqual([]);
    await s.run({ op: 'channels.delete', args: { id: OWNED } });
    expect(s.client.calls).toContain(`deleteChannel ${OWNED}`);
    await expect(s.run({ op: 'channels.get', args: { channel: { by: 'id', key: OWNED } } })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('search: searchChannels by text or by view and countries, one page without a cursor; a cursor or categories are refused naming them', async () => {
    const s = await working();
    s.client.directory.push(
      channelData(STRANGER, 'Elsewhere News', 'guest', '0029VaGUEST1'),
      channelData(FOLLOWED, 'Sports', 'subscriber', '0029VaNEWS01'),
    );
    const byText = await s.run<ChannelListResult>({
      op: 'channels.search',
      args: { by: 'text', text: 'news', categories: [], limit: 10, startCursor: '' },
    });
    expect(ChannelListResult.parse(byText)).toEqual({
      page: { startCursor: null, endCursor: null, hasNextPage: false, hasPreviousPage: false },
      channels: [
        {
          id: STRANGER,
          name: 'Elsewhere News',
          invite: 'https://www.whatsapp.com/channel/0029VaGUEST1',
          description: 'about Elsewhere News',
          verified: false,
          subscribersCount: 42,
        },
      ],
    });
    expect(s.argsOf('searchChannels')).toEqual([{ searchText: 'news', limit: 10 }]);
    const byView = await s.run<ChannelListResult>({
      op: 'channels.search',
      args: { by: 'view', view: 'POPULAR', countries: ['BR', 'DE'], categories: [], limit: 1, startCursor: '' },
    });
    expect(byView.channels).toHaveLength(1);
    expect(s.argsOf('searchChannels')).toEqual([{ view: 2, countryCodes: ['BR', 'DE'], limit: 1 }]);

    const before = s.client.calls.length;
    await expect(
      s.run({ op: 'channels.search', args: { by: 'text', text: 'news', categories: [], limit: 10, startCursor: 'b2Zmc2V0OjEw' } }),
    ).rejects.toMatchObject({
      code: 'INVALID',
      details: [{ path: 'body.startCursor', reason: expect.stringContaining('first page only') }],
    });
    await expect(
      s.run({ op: 'channels.search', args: { by: 'text', text: 'news', categories: ['NEWS'], limit: 10, startCursor: '' } }),
    ).rejects.toMatchObject({ code: 'INVALID', details: [{ path: 'body.categories', reason: expect.stringContaining('category') }] });
    expect(s.client.calls.slice(before)).toEqual([]);
  });

  it('the posts preview stays NOT_SUPPORTED (the engine catalog)', async () => {
    const s = await working();
    await expect(
      s.run({ op: 'channels.preview', args: { channel: { by: 'id', key: FOLLOWED }, downloadMedia: false, limit: 10 } }),
    ).rejects.toMatchObject({
      code: 'NOT_SUPPORTED',
    });
  });
});
