import { randomBytes } from 'node:crypto';

/** The account's part in a channel, as WhatsApp Web's newsletter metadata names it. */
export type FakeWebChannelRole = 'owner' | 'subscriber' | 'guest';

/** A channel (newsletter) as WhatsApp's servers keep it. */
export interface FakeWebChannel {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly inviteCode: string;
  readonly verified: boolean;
  readonly creation: number;
  /** Subscribers other than the account. */
  readonly others: number;
  /** The account's part in it. */
  role: FakeWebChannelRole;
  /** The account muted its notifications. */
  muted: boolean;
  /** The picture the page sent when it made the channel (a `data:` URL), if any. */
  readonly picture: string | null;
}

/** A post the account made in a channel it owns, as the servers got it. */
export interface FakeWebChannelPost {
  readonly channelId: string;
  /** What the page sent it as (`text`, `media`, `pollCreation`). */
  readonly kind: string;
  /** The message the page made, ids serialized. */
  readonly msg: Record<string, unknown>;
  /** The id the servers gave the post (channel posts have small numeric ids). */
  readonly serverId: number;
}

/** A directory search as the page asked the servers for it. */
export interface FakeWebChannelSearch {
  readonly searchText: string;
  readonly view: string;
  readonly countryCodes: string[];
  readonly pageSize: number;
}

/** A directory search by text as wa-js asks the servers for it (WhatsApp's MEX query): categories, a page size and a cursor. */
export interface FakeWebChannelDirectorySearch {
  readonly searchText: string;
  readonly categories: string[];
  readonly limit: number;
  /** `endCursor` of the page before; null for the first. */
  readonly cursor: string | null;
}

/** What the channels side needs of the phone: a way to reach its pages and to deliver a post. */
interface ChannelsPhone {
  push(message: Record<string, unknown>): void;
}

const now = () => Math.floor(Date.now() / 1000);

/**
 * The channels WhatsApp's servers know, and the account's part in each: the test publishes
 * channels run by others (`publish`) and posts in them (`post`); the page creates, deletes,
 * follows, unfollows, mutes and searches (`channel-*` requests), and is told the channels it owns
 * or follows after every change, as WhatsApp Web is.
 */
export class FakeWebChannels {
  /** Directory searches the page made, in order. */
  readonly searches: FakeWebChannelSearch[] = [];
  /** Directory searches by text with a cursor (wa-js's), in order. */
  readonly directorySearches: FakeWebChannelDirectorySearch[] = [];
  /** Posts the page made in channels the account owns, in order. */
  readonly posts: FakeWebChannelPost[] = [];
  private readonly channels = new Map<string, FakeWebChannel>();
  private creationEnabled = true;

  constructor(private readonly phone: ChannelsPhone) {}

  /** A channel someone else runs, in the directory; `role` says whether the account follows it already. */
  publish(
    fields: { name: string; description?: string; verified?: boolean; subscribers?: number },
    role: Exclude<FakeWebChannelRole, 'owner'> = 'guest',
  ): FakeWebChannel {
    const channel = this.make({ ...fields, role, picture: null });
    this.sync();
    return channel;
  }

  /** A channel as the servers have it now. */
  get(id: string): FakeWebChannel | undefined {
    return this.channels.get(id);
  }

  /** Its owner deletes a channel run by someone else: the servers forget it (a page that has it learns on its next request). */
  close(id: string): void {
    this.channel(id);
    this.channels.delete(id);
  }

  /** WhatsApp's gate on making channels (WAWebNewsletterGatingUtils): closed, the library refuses before asking. */
  allowCreation(enabled: boolean): void {
    this.creationEnabled = enabled;
    this.phone.push({ type: 'channel-gating', creationEnabled: enabled });
  }

  /** The channel's admin posts text in it: the servers deliver it to the account when it follows the channel. Answers the post's id. */
  post(channelId: string, body: string): string {
    const channel = this.channel(channelId);
    // Channel posts have small numeric server ids, not message ids of a device.
    const id = String(randomBytes(2).readUInt16BE(0) + 100);
    const msg = { id: { fromMe: false, remote: channel.id, id }, type: 'chat', body, t: now(), from: channel.id, to: channel.id, ack: 0 };
    if (channel.role !== 'guest') this.phone.push({ type: 'channel-post', msg });
    return id;
  }

  /** A page's request about channels (`channel-*`); answers what the page is told back. */
  fromPage(message: { type: string; [key: string]: unknown }): unknown {
    const id = typeof message.id === 'string' ? message.id : '';
    switch (message.type) {
      case 'channel-get':
        return this.metadata(this.channel(id));
      case 'channel-by-invite': {
        const channel = [...this.channels.values()].find((candidate) => candidate.inviteCode === message.code);
        if (!channel) throw new Error(`item-not-found: no channel has the invite ${String(message.code)}`);
        return this.metadata(channel);
      }
      case 'channel-create': {
        if (!this.creationEnabled) throw new Error('forbidden: channel creation is not enabled for this account');
        const channel = this.make({
          name: String(message.name),
          description: typeof message.description === 'string' ? message.description : '',
          role: 'owner',
          picture: typeof message.picture === 'string' ? message.picture : null,
        });
        this.sync();
        return this.metadata(channel);
      }
      case 'channel-delete':
        this.owned(id, 'delete');
        this.channels.delete(id);
        return undefined;
      case 'channel-follow':
      case 'channel-unfollow': {
        const channel = this.channel(id);
        if (channel.role === 'owner') throw new Error(`not-acceptable: the owner of ${id} cannot ${message.type.slice(8)} it`);
        channel.role = message.type === 'channel-follow' ? 'subscriber' : 'guest';
        return this.metadata(channel);
      }
      case 'channel-send': {
        this.owned(id, 'post in');
        const serverId = randomBytes(2).readUInt16BE(0) + 100;
        this.posts.push({ channelId: id, kind: String(message.kind), msg: message.msg as Record<string, unknown>, serverId });
        return { t: now(), serverId };
      }
      case 'channel-mute':
        this.channel(id).muted = message.muted === true;
        return undefined;
      case 'channel-search': {
        const search = message.search as FakeWebChannelSearch;
        this.searches.push(search);
        const text = search.searchText.toLowerCase();
        return [...this.channels.values()]
          .filter((channel) => channel.role !== 'owner' && channel.name.toLowerCase().includes(text))
          .sort((a, b) => (search.view === 'POPULAR' ? b.others - a.others : 0))
          .slice(0, search.pageSize)
          .map((channel) => this.metadata(channel));
      }
      case 'channel-directory': {
        // The channels here have no categories: a category filter is recorded, not applied.
        const search = message.search as FakeWebChannelDirectorySearch;
        this.directorySearches.push(search);
        const text = search.searchText.toLowerCase();
        const found = [...this.channels.values()].filter((channel) => channel.role !== 'owner' && channel.name.toLowerCase().includes(text));
        // The cursor is the servers' own: here the offset of the next page.
        const start = search.cursor === null ? 0 : Number(Buffer.from(search.cursor, 'base64url').toString());
        const end = start + search.limit;
        return {
          channels: found.slice(start, end).map((channel) => this.metadata(channel)),
          endCursor: end < found.length ? Buffer.from(String(end)).toString('base64url') : null,
        };
      }
      default:
        throw new Error(`the fake has no channels request ${message.type}`);
    }
  }

  private make(fields: {
    name: string;
    description?: string;
    verified?: boolean;
    subscribers?: number;
    role: FakeWebChannelRole;
    picture: string | null;
  }) {
    const channel: FakeWebChannel = {
      id: `120363${String(Date.now()).slice(-6)}${randomBytes(3).readUIntBE(0, 3).toString().padStart(8, '0')}@newsletter`,
      name: fields.name,
      description: fields.description ?? '',
      inviteCode: `0029Va${randomBytes(12).toString('base64url').slice(0, 16)}`,
      verified: fields.verified ?? false,
      creation: now(),
      others: fields.subscribers ?? 0,
      role: fields.role,
      muted: false,
      picture: fields.picture,
    };
    this.channels.set(channel.id, channel);
    return channel;
  }

  private channel(id: string): FakeWebChannel {
    const channel = this.channels.get(id);
    if (!channel) throw new Error(`item-not-found: no channel ${id}`);
    return channel;
  }

  private owned(id: string, doing: string): FakeWebChannel {
    const channel = this.channel(id);
    if (channel.role !== 'owner') throw new Error(`forbidden: only the owner of ${id} may ${doing} it`);
    return channel;
  }

  /** The channel's metadata as the page models it (WhatsApp Web's newsletter metadata). */
  private metadata(channel: FakeWebChannel): Record<string, unknown> {
    return {
      id: channel.id,
      name: channel.name,
      description: channel.description,
      inviteCode: channel.inviteCode,
      verified: channel.verified,
      creationTime: channel.creation,
      size: channel.others + (channel.role === 'guest' ? 0 : 1),
      membershipType: channel.role,
      muted: channel.muted,
    };
  }

  /** The channels the account owns or follows, told to its pages. */
  private sync(): void {
    const mine = [...this.channels.values()].filter((channel) => channel.role !== 'guest');
    this.phone.push({ type: 'channels', channels: mine.map((channel) => this.metadata(channel)) });
  }
}
