// Channels (newsletters) through Chromium, for both browser engines on the fake WhatsApp Web, whose
// backend keeps the channels and the account's part in each. WEBJS: whatsapp-web.js's own channel
// code (getChannels, getChatById of a @newsletter id, getChannelByInviteCode, createChannel,
// deleteChannel, subscribe/unsubscribe, Channel.mute/unmute, searchChannels, sendMessage to a
// channel). WPP: WPPConnect's newsletter layer and wa-js's `newsletter.*`, `chat.list` and
// WhatsApp's metadata query, which find no channel by invite and search by text only (with a
// cursor and categories). Each test checks what the servers were told and what the API answered.
import { Channel, ChannelListResult, MessageRecord } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { describe, expect, it } from 'vitest';
import { pairedSuite, pairedWebjs, pairedWpp } from './paired-webjs.js';

const ME = { id: '15550001414@c.us', pushName: 'Channel Tests' };
// A 1x1 PNG: the library crops and re-encodes a channel's picture in the page, so it must decode.
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a3e1f4e20000000049454e44ae426082',
  'hex',
);
const INVITE = 'https://www.whatsapp.com/channel/';

describe.each([
  {
    engine: 'WEBJS',
    paired: pairedWebjs,
    // whatsapp-web.js checks WhatsApp Web's gate itself; wa-js asks the servers, which refuse.
    creationRefused: "WEBJS could not create channel 'Refused': CreateChannelError: A channel creation is not enabled",
    findsByInvite: true,
    muteGone: (id: string) => `WEBJS could not mute channel ${id}: WhatsApp Web refused`,
  },
  {
    engine: 'WPP',
    paired: pairedWpp,
    creationRefused: expect.stringMatching(/^WPP could not create channel 'Refused': .*channel creation is not enabled for this account/) as unknown,
    findsByInvite: false,
    muteGone: (id: string) => expect.stringMatching(new RegExp(`^WPP could not mute channel ${id}: .*no channel ${id}`)) as unknown,
  },
] as const)('$engine channels through Chromium', ({ engine, paired, creationRefused, findsByInvite, muteGone }) => {
  const session = pairedSuite(paired, 'channels', ME);
  const { payloads, run } = session;

  it('list: the channels the account follows, as WhatsApp Web has them, with their role; a role filters', async () => {
    const news = session.phone.channels.publish(
      { name: 'Daily News', description: 'what happened', verified: true, subscribers: 1200 },
      'subscriber',
    );
    const listed = await waitFor(async () => {
      const channels = await run<Channel[]>({ op: 'channels.list', args: {} });
      return channels.find((channel) => channel.id === news.id) ?? null;
    }, 'the followed channel in the list');
    expect(Channel.parse(listed)).toEqual({
      id: news.id,
      name: 'Daily News',
      invite: INVITE + news.inviteCode,
      description: 'what happened',
      verified: true,
      subscribersCount: 1201,
      role: 'SUBSCRIBER',
    });
    expect(await run<Channel[]>({ op: 'channels.list', args: { role: 'OWNER' } })).toEqual([]);
  });

  it('create: the servers make the channel with its description and the picture the page re-encoded; the account owns it', async () => {
    const created = await run<Channel>({
      op: 'channels.create',
      args: { name: 'Launch', description: 'What we ship', picture: { mimetype: 'image/png', data: PNG.toString('base64') } },
    });
    const made = session.phone.channels.get(created.id);
    expect(made).toMatchObject({ name: 'Launch', description: 'What we ship', role: 'owner' });
    expect(made?.picture, 'the library crops the picture to a JPEG in the page').toMatch(/^data:image\/jpeg;base64,/);
    expect(Channel.parse(created)).toEqual({
      id: made!.id,
      name: 'Launch',
      invite: INVITE + made!.inviteCode,
      description: 'What we ship',
      verified: false,
      subscribersCount: 0,
      role: 'OWNER',
    });
    expect((await run<Channel[]>({ op: 'channels.list', args: { role: 'OWNER' } })).map((channel) => channel.id)).toEqual([created.id]);
  });

  it('create: where WhatsApp does not let the account make channels, ENGINE_ERROR says so and the servers make none', async () => {
    session.phone.channels.allowCreation(false);
    // The servers tell the page in order: once it lists a channel published after the gate closed, it has the gate.
    const marker = session.phone.channels.publish({ name: 'After the gate' }, 'subscriber');
    await waitFor(async () => (await run<Channel[]>({ op: 'channels.list', args: {} })).some((channel) => channel.id === marker.id), 'the gate');
    try {
      await expect(run({ op: 'channels.create', args: { name: 'Refused' } })).rejects.toMatchObject({
        code: 'ENGINE_ERROR',
        message: creationRefused,
      });
      expect((await run<Channel[]>({ op: 'channels.list', args: {} })).map((channel) => channel.name)).not.toContain('Refused');
    } finally {
      session.phone.channels.allowCreation(true);
    }
  });

  it('get: by id (a preview of a channel the account does not follow); one the servers do not know is NOT_FOUND', async () => {
    const other = session.phone.channels.publish({ name: 'Elsewhere', description: 'far away', subscribers: 7 });
    expect(await run({ op: 'channels.get', args: { channel: { by: 'id', key: other.id } } })).toEqual({
      id: other.id,
      name: 'Elsewhere',
      invite: INVITE + other.inviteCode,
      description: 'far away',
      verified: false,
      subscribersCount: 7,
      role: 'GUEST',
    });
    const unknown = { by: 'id', key: '120363999999999999@newsletter' } as const;
    await expect(run({ op: 'channels.get', args: { channel: unknown } })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      details: { channel: unknown.key },
    });
  });

  if (findsByInvite)
    it('get: by invite; an invite the servers do not know is NOT_FOUND', async () => {
      const other = session.phone.channels.publish({ name: 'By invite' });
      expect(await run({ op: 'channels.get', args: { channel: { by: 'invite', key: other.inviteCode } } })).toMatchObject({
        id: other.id,
        role: 'GUEST',
      });
      await expect(run({ op: 'channels.get', args: { channel: { by: 'invite', key: '0029VaNOSUCH1' } } })).rejects.toMatchObject({
        code: 'NOT_FOUND',
        details: { channel: '0029VaNOSUCH1' },
      });
    });
  else
    it('get: by invite is NOT_SUPPORTED naming the field (wa-js has no lookup by invite), and the servers are not asked', async () => {
      const other = session.phone.channels.publish({ name: 'By invite' });
      await expect(run({ op: 'channels.get', args: { channel: { by: 'invite', key: other.inviteCode } } })).rejects.toMatchObject({
        code: 'NOT_SUPPORTED',
        message:
          "engine WPP does not support finding a channel by its invite code (wa-js has no lookup by invite); ask by its id (session 'channels')",
        details: { field: 'channel', engine: 'WPP' },
      });
    });

  it('follow, mute, unmute, unfollow: the servers have the account`s part and its mute; its owner cannot unfollow', async () => {
    const other = session.phone.channels.publish({ name: 'Sports', subscribers: 3 });
    await run({ op: 'channels.follow', args: { id: other.id } });
    expect(session.phone.channels.get(other.id)?.role).toBe('subscriber');
    expect(await run({ op: 'channels.get', args: { channel: { by: 'id', key: other.id } } })).toMatchObject({
      role: 'SUBSCRIBER',
      subscribersCount: 4,
    });

    await run({ op: 'channels.mute', args: { id: other.id } });
    expect(session.phone.channels.get(other.id)?.muted).toBe(true);
    await run({ op: 'channels.unmute', args: { id: other.id } });
    expect(session.phone.channels.get(other.id)?.muted).toBe(false);

    await run({ op: 'channels.unfollow', args: { id: other.id } });
    expect(session.phone.channels.get(other.id)?.role).toBe('guest');
    expect(await run({ op: 'channels.get', args: { channel: { by: 'id', key: other.id } } })).toMatchObject({ role: 'GUEST' });

    const mine = await run<Channel>({ op: 'channels.create', args: { name: 'Mine to keep' } });
    await expect(run({ op: 'channels.unfollow', args: { id: mine.id } })).rejects.toMatchObject({
      code: 'WRONG_STATUS',
      message: `channel ${mine.id}: its owner cannot unfollow it; delete it instead`,
    });
    expect(session.phone.channels.get(mine.id)?.role).toBe('owner');
  });

  it('mute: a channel the servers no longer have (its owner deleted it) is refused by WhatsApp: ENGINE_ERROR naming it', async () => {
    const gone = session.phone.channels.publish({ name: 'Closing down' }, 'subscriber');
    await waitFor(async () => (await run<Channel[]>({ op: 'channels.list', args: {} })).some((channel) => channel.id === gone.id), 'the channel');
    session.phone.channels.close(gone.id);
    await expect(run({ op: 'channels.mute', args: { id: gone.id } })).rejects.toMatchObject({
      code: 'ENGINE_ERROR',
      message: muteGone(gone.id),
      details: { channel: gone.id },
    });
  });

  // wa-js mutes only the channels the account has (its newsletter chats), whatsapp-web.js any it can preview.
  if (engine === 'WPP')
    it('mute: a channel the account does not follow is NOT_FOUND naming it, and the servers are not told', async () => {
      const other = session.phone.channels.publish({ name: 'Only previewed' });
      await expect(run({ op: 'channels.mute', args: { id: other.id } })).rejects.toMatchObject({
        code: 'NOT_FOUND',
        message: `WPP found no channel ${other.id} among the account's`,
        details: { channel: other.id },
      });
      expect(session.phone.channels.get(other.id)?.muted).toBe(false);
    });

  it('delete: the servers delete the owner`s channel; a channel the account only follows is WRONG_STATUS and stays', async () => {
    const followed = session.phone.channels.publish({ name: 'Not mine' }, 'subscriber');
    await expect(run({ op: 'channels.delete', args: { id: followed.id } })).rejects.toMatchObject({
      code: 'WRONG_STATUS',
      message: `channel ${followed.id}: only its owner may delete it; the account is its SUBSCRIBER`,
    });
    expect(session.phone.channels.get(followed.id)).toBeDefined();

    const mine = await run<Channel>({ op: 'channels.create', args: { name: 'Short lived' } });
    await run({ op: 'channels.delete', args: { id: mine.id } });
    expect(session.phone.channels.get(mine.id)).toBeUndefined();
    await expect(run({ op: 'channels.get', args: { channel: { by: 'id', key: mine.id } } })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  // whatsapp-web.js searches by view or text, first page only; wa-js by text only, with categories and a cursor.
  if (engine === 'WEBJS') {
    it('search: the directory by text, or by view and countries, one page of the limit asked; the servers get the query', async () => {
      const weather = session.phone.channels.publish({ name: 'Weather Watch', description: 'rain or shine', subscribers: 50 });
      session.phone.channels.publish({ name: 'Weather Daily', subscribers: 5000 });
      const byText = await run<ChannelListResult>({
        op: 'channels.search',
        args: { by: 'text', text: 'weather watch', categories: [], limit: 10, startCursor: '' },
      });
      expect(ChannelListResult.parse(byText)).toEqual({
        page: { startCursor: null, endCursor: null, hasNextPage: false, hasPreviousPage: false },
        channels: [
          {
            id: weather.id,
            name: 'Weather Watch',
            invite: INVITE + weather.inviteCode,
            description: 'rain or shine',
            verified: false,
            subscribersCount: 50,
          },
        ],
      });
      expect(session.phone.channels.searches.at(-1)).toEqual({
        searchText: 'weather watch',
        view: 'RECOMMENDED',
        countryCodes: ['US'],
        pageSize: 10,
      });

      const byView = await run<ChannelListResult>({
        op: 'channels.search',
        args: { by: 'view', view: 'POPULAR', countries: ['BR', 'DE'], categories: [], limit: 1, startCursor: '' },
      });
      expect(byView.channels.map((channel) => channel.name)).toEqual(['Weather Daily']);
      expect(session.phone.channels.searches.at(-1)).toEqual({ searchText: '', view: 'POPULAR', countryCodes: ['BR', 'DE'], pageSize: 1 });
    });

    it('search: a cursor or categories, which the library has not, are refused naming the field, and the servers are not asked', async () => {
      const asked = session.phone.channels.searches.length;
      await expect(
        run({ op: 'channels.search', args: { by: 'text', text: 'news', categories: [], limit: 10, startCursor: 'b2Zmc2V0OjEw' } }),
      ).rejects.toMatchObject({ code: 'INVALID', details: [{ path: 'body.startCursor', reason: expect.stringContaining('first page only') }] });
      await expect(
        run({ op: 'channels.search', args: { by: 'text', text: 'news', categories: ['NEWS'], limit: 10, startCursor: '' } }),
      ).rejects.toMatchObject({ code: 'INVALID', details: [{ path: 'body.categories', reason: expect.stringContaining('category') }] });
      expect(session.phone.channels.searches).toHaveLength(asked);
    });
  } else {
    it('search: the directory by text, a page of the limit at a time through the servers` cursor; the servers get the categories', async () => {
      const rain = session.phone.channels.publish({ name: 'Rain Report', description: 'wet', verified: true, subscribers: 9 });
      const storms = session.phone.channels.publish({ name: 'Rain Storms', subscribers: 3 });
      const first = await run<ChannelListResult>({
        op: 'channels.search',
        args: { by: 'text', text: 'rain', categories: ['NEWS'], limit: 1, startCursor: '' },
      });
      expect(ChannelListResult.parse(first)).toEqual({
        page: { startCursor: null, endCursor: expect.any(String) as unknown, hasNextPage: true, hasPreviousPage: false },
        channels: [{ id: rain.id, name: 'Rain Report', invite: INVITE + rain.inviteCode, description: 'wet', verified: true, subscribersCount: 9 }],
      });
      expect(session.phone.channels.directorySearches.at(-1)).toEqual({ searchText: 'rain', categories: ['NEWS'], limit: 1, cursor: null });

      const second = await run<ChannelListResult>({
        op: 'channels.search',
        args: { by: 'text', text: 'rain', categories: [], limit: 1, startCursor: first.page.endCursor! },
      });
      expect(second).toEqual({
        page: { startCursor: first.page.endCursor, endCursor: null, hasNextPage: false, hasPreviousPage: true },
        channels: [{ id: storms.id, name: 'Rain Storms', invite: INVITE + storms.inviteCode, verified: false, subscribersCount: 3 }],
      });
      expect(session.phone.channels.directorySearches.at(-1)).toEqual({ searchText: 'rain', categories: [], limit: 1, cursor: first.page.endCursor });
    });

    it('search: by view is NOT_SUPPORTED (the catalog: wa-js searches by text only), and the servers are not asked', async () => {
      const asked = session.phone.channels.directorySearches.length + session.phone.channels.searches.length;
      await expect(
        run({ op: 'channels.search', args: { by: 'view', view: 'POPULAR', countries: ['US'], categories: [], limit: 10, startCursor: '' } }),
      ).rejects.toMatchObject({ code: 'NOT_SUPPORTED', details: { field: 'view', engine: 'WPP' } });
      expect(session.phone.channels.directorySearches.length + session.phone.channels.searches.length).toBe(asked);
    });
  }

  it('the posts preview stays NOT_SUPPORTED (the engine catalog)', async () => {
    const news = session.phone.channels.publish({ name: 'Previewed' }, 'subscriber');
    await expect(
      run({ op: 'channels.preview', args: { channel: { by: 'id', key: news.id }, downloadMedia: false, limit: 10 } }),
    ).rejects.toMatchObject({
      code: 'NOT_SUPPORTED',
    });
  });

  // Posting in a channel: wa-js 4.6.0's send looks the channel up in WhatsApp Web's chat collection
  // (chat.find), not its newsletter collection, where channels are (wppconnect-server#2475): WPP cannot.
  if (engine === 'WEBJS') {
    it('send: text to a channel the account owns is a post the servers get, answered as the account`s message in the channel', async () => {
      const own = await run<Channel>({ op: 'channels.create', args: { name: 'Announcements', description: '' } });
      const record = await run<MessageRecord>({ op: 'send.text', args: { chatId: own.id, text: 'We ship today', linkPreview: false } });
      expect(MessageRecord.parse(record)).toMatchObject({ fromMe: true, to: own.id, body: 'We ship today', source: 'api' });
      expect(session.phone.channels.posts).toEqual([
        expect.objectContaining({ channelId: own.id, kind: 'text', msg: expect.objectContaining({ body: 'We ship today' }) as unknown }),
      ]);
      expect(record.id).toContain((session.phone.channels.posts[0]!.msg.id as { id: string }).id);
    });

    it('send: to a channel the account only follows, WhatsApp refuses: ENGINE_ERROR, and the servers get no post', async () => {
      const news = session.phone.channels.publish({ name: 'Not mine' }, 'subscriber');
      await waitFor(async () => (await run<Channel[]>({ op: 'channels.list', args: {} })).some((channel) => channel.id === news.id), 'the channel');
      await expect(run({ op: 'send.text', args: { chatId: news.id, text: 'Hello?', linkPreview: false } })).rejects.toMatchObject({
        code: 'ENGINE_ERROR',
      });
      expect(session.phone.channels.posts.filter((post) => post.channelId === news.id)).toEqual([]);
    });
  } else {
    it('send: to a channel the account owns, wa-js finds no chat: NOT_FOUND naming it, and the servers get no post', async () => {
      const own = await run<Channel>({ op: 'channels.create', args: { name: 'Unposted', description: '' } });
      await expect(run({ op: 'send.text', args: { chatId: own.id, text: 'Hello?', linkPreview: false } })).rejects.toMatchObject({
        code: 'NOT_FOUND',
        details: { chatId: own.id },
      });
      expect(session.phone.channels.posts.filter((post) => post.channelId === own.id)).toEqual([]);
    });
  }

  it('a post in a followed channel is a message from the channel', async () => {
    const news = session.phone.channels.publish({ name: 'Posts' }, 'subscriber');
    await waitFor(async () => (await run<Channel[]>({ op: 'channels.list', args: {} })).some((channel) => channel.id === news.id), 'the channel');
    session.phone.channels.post(news.id, 'Hello, followers');
    const post = await waitFor(() => payloads('message').find((p) => p.from === news.id), 'the post as a message');
    expect(post).toMatchObject({ from: news.id, body: 'Hello, followers', fromMe: false });
  });
});
