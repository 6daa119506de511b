import { createHash, randomBytes } from 'node:crypto';
import {
  CHANNEL_INVITE_PREFIX,
  messageId,
  type Channel,
  type ChannelListResult,
  type ChannelMessage,
  type ChannelPublicInfo,
  type ChannelRef,
  type ChannelRole,
  type ChannelSearchArgs,
} from '@switchboard/protocol';
import type { NewChannel } from '../../capabilities/channels.js';
import { CommandError, invalidField } from '../../command-error.js';
import { messageRecord } from './message-record.js';
import type { SandboxSide } from './sandbox-side.js';
import { nowSeconds } from './simulations/world-ids.js';

/*
 * Channels (newsletters) on the SANDBOX (docs/sandbox.md). The simulated service has a directory
 * of public channels (DIRECTORY, the search's results) and knows every other well-formed channel
 * id or invite code too, as a channel made up from it the same way each time, so a client's
 * example id works as it would on the real service. What the account does is kept in the world:
 * channels it creates (OWNER), follows (SUBSCRIBER), mutes, and deletes (gone: 404 afterwards).
 */

interface SandboxChannel {
  readonly id: string;
  readonly name: string;
  readonly description?: string;
  /** The invite code; the link is CHANNEL_INVITE_PREFIX + code. */
  readonly code: string;
  readonly picture?: string;
  readonly verified: boolean;
  readonly category: string;
  readonly country: string;
  /** Unix seconds. */
  readonly created: number;
  subscribers: number;
  role: ChannelRole;
  /** Nothing the API reads shows it; the real service keeps it per viewer, and so does the world. */
  muted: boolean;
  /** Whether the directory lists it (search). */
  readonly listed: boolean;
}

/** The simulated directory: [name, description, category, country, subscribers, verified, days old]. */
const DIRECTORY: readonly (readonly [string, string, string, string, number, boolean, number])[] = [
  ['Sandbox News', 'Headlines from the simulated world, every hour', 'NEWS', 'US', 1_250_000, true, 900],
  ['Daily Football', 'Scores, transfers and match days', 'SPORTS', 'GB', 830_000, true, 700],
  ['Cinema Tonight', 'What is on, and what is worth it', 'ENTERTAINMENT', 'US', 410_000, false, 400],
  ['Green Kitchen', 'Vegetarian recipes in five steps', 'LIFESTYLE', 'DE', 96_000, false, 120],
  ['Startup Notes', 'Founders, funding and failures', 'BUSINESS', 'IN', 58_000, false, 60],
  ['City Runners', 'Training plans and race calendars', 'SPORTS', 'BR', 31_000, false, 20],
  ['Open Science', 'Papers explained in plain words', 'ORGANIZATIONS', 'FR', 144_000, true, 500],
  ['Ada Lovelace Fans', 'Notes on the first programmer', 'PEOPLE', 'GB', 12_000, false, 5],
  ['Noticias Hoy', 'Las noticias del día', 'NEWS', 'MX', 690_000, true, 800],
  ['Music Drops', 'New releases every Friday', 'ENTERTAINMENT', 'NG', 270_000, false, 3],
];

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
function digitsOf(bytes: Buffer, count: number): string {
  return Array.from(bytes.subarray(0, count), (byte) => byte % 10).join('');
}
function codeOf(bytes: Buffer): string {
  return `0029Va${Array.from(bytes.subarray(0, 18), (byte) => BASE62[byte % 62]).join('')}`;
}

/** What the account knows of channels; kept in the world (sandbox-world.ts). */
export class SandboxChannels {
  private readonly byId = new Map<string, SandboxChannel>();
  private readonly idByCode = new Map<string, string>();
  private readonly deleted = new Set<string>();

  constructor() {
    const now = nowSeconds();
    for (const [name, description, category, country, subscribers, verified, days] of DIRECTORY) {
      const hash = digest(`directory:${name}`);
      this.add({
        id: `120363${digitsOf(hash, 12)}@newsletter`,
        name,
        description,
        code: codeOf(hash.subarray(12)),
        verified,
        category,
        country,
        created: now - days * 86_400,
        subscribers,
        role: 'GUEST',
        muted: false,
        listed: true,
      });
    }
  }

  /** Every channel the account owns, administers or follows. */
  mine(): SandboxChannel[] {
    return [...this.byId.values()].filter((channel) => channel.role !== 'GUEST' && !this.deleted.has(channel.id));
  }

  /** The directory's channels (search), the account's own public ones among them. */
  listed(): SandboxChannel[] {
    return [...this.byId.values()].filter((channel) => channel.listed && !this.deleted.has(channel.id));
  }

  /** The channel `ref` names; one made up from it when the service has not seen it yet. Null once deleted. */
  find(ref: ChannelRef): SandboxChannel | null {
    const id = ref.by === 'id' ? ref.key : (this.idByCode.get(ref.key) ?? `1203630${digitsOf(digest(`invite:${ref.key}`), 11)}@newsletter`);
    if (this.deleted.has(id)) return null;
    const known = this.byId.get(id);
    if (known) return known;
    const hash = digest(`channel:${id}`);
    return this.add({
      id,
      name: `Channel ${id.slice(0, id.indexOf('@')).slice(-4)}`,
      code: ref.by === 'invite' ? ref.key : codeOf(hash),
      verified: false,
      category: 'PEOPLE',
      country: 'US',
      created: nowSeconds() - (hash.readUInt16BE(0) % 365) * 86_400,
      subscribers: hash.readUInt32BE(2) % 50_000,
      role: 'GUEST',
      muted: false,
      listed: false,
    });
  }

  add(channel: SandboxChannel): SandboxChannel {
    this.byId.set(channel.id, channel);
    this.idByCode.set(channel.code, channel.id);
    return channel;
  }

  remove(id: string): void {
    this.deleted.add(id);
  }
}

function publicInfo(channel: SandboxChannel): ChannelPublicInfo {
  return {
    id: channel.id,
    name: channel.name,
    invite: CHANNEL_INVITE_PREFIX + channel.code,
    ...(channel.picture ? { preview: channel.picture, picture: channel.picture } : {}),
    ...(channel.description ? { description: channel.description } : {}),
    verified: channel.verified,
    subscribersCount: channel.subscribers,
  };
}

function view(channel: SandboxChannel): Channel {
  return { ...publicInfo(channel), role: channel.role };
}

function known(side: SandboxSide, ref: ChannelRef): SandboxChannel {
  side.requireWorking();
  const channel = side.world.channels.find(ref);
  if (!channel) {
    throw new CommandError('NOT_FOUND', `channel ${ref.key} does not exist (it was deleted)`, { session: side.context.session, channel: ref.key });
  }
  return channel;
}

function refuse(channel: SandboxChannel, why: string): CommandError {
  return new CommandError('WRONG_STATUS', `channel ${channel.id}: ${why}`, { channel: channel.id, role: channel.role });
}

export async function listChannels(side: SandboxSide, role: Exclude<ChannelRole, 'GUEST'> | undefined): Promise<Channel[]> {
  side.requireWorking();
  return side.world.channels
    .mine()
    .filter((channel) => role === undefined || channel.role === role)
    .map(view);
}

export async function createChannel(side: SandboxSide, request: NewChannel): Promise<Channel> {
  side.requireWorking();
  const picture = request.picture ? ((await side.context.saveMedia(request.picture))?.url ?? undefined) : undefined;
  const channel = side.world.channels.add({
    id: `120363${Array.from(randomBytes(12), (byte) => byte % 10).join('')}@newsletter`,
    name: request.name,
    ...(request.description ? { description: request.description } : {}),
    code: codeOf(randomBytes(18)),
    ...(picture ? { picture } : {}),
    verified: false,
    category: 'PEOPLE',
    country: 'US',
    created: nowSeconds(),
    subscribers: 0,
    role: 'OWNER',
    muted: false,
    listed: true,
  });
  return view(channel);
}

export async function getChannel(side: SandboxSide, ref: ChannelRef): Promise<Channel> {
  return view(known(side, ref));
}

export async function deleteChannel(side: SandboxSide, id: string): Promise<void> {
  const channel = known(side, { by: 'id', key: id });
  if (channel.role !== 'OWNER') throw refuse(channel, `only its owner may delete it; the account is its ${channel.role}`);
  side.world.channels.remove(id);
}

export async function followChannel(side: SandboxSide, id: string): Promise<void> {
  const channel = known(side, { by: 'id', key: id });
  if (channel.role !== 'GUEST') return;
  channel.role = 'SUBSCRIBER';
  channel.subscribers++;
}

export async function unfollowChannel(side: SandboxSide, id: string): Promise<void> {
  const channel = known(side, { by: 'id', key: id });
  if (channel.role === 'OWNER') throw refuse(channel, 'its owner cannot unfollow it; delete it instead');
  if (channel.role === 'GUEST') return;
  channel.role = 'GUEST';
  channel.subscribers = Math.max(0, channel.subscribers - 1);
}

/** Muting is the account's own setting: kept for a channel it does not follow too, for when it does. */
export async function muteChannel(side: SandboxSide, id: string, muted: boolean): Promise<void> {
  known(side, { by: 'id', key: id }).muted = muted;
}

/** A simulated channel's posts: three, the same each time; a channel the account made has none. */
export async function channelPosts(
  side: SandboxSide,
  query: { readonly channel: ChannelRef; readonly limit: number; readonly downloadMedia: boolean },
): Promise<ChannelMessage[]> {
  const me = side.requireWorking();
  const channel = known(side, query.channel);
  if (channel.role === 'OWNER') return [];
  const posts = [1, 2, 3].map((n): ChannelMessage => {
    const hash = digest(`post:${channel.id}:${n}`);
    return {
      reactions: { '👍': hash.readUInt16BE(0) % 500, '❤️': hash.readUInt16BE(2) % 200 },
      viewCount: Math.min(channel.subscribers, 100 + (hash.readUInt32BE(4) % 10_000)),
      message: messageRecord(
        { id: messageId(false, channel.id, String(100 + n)), from: channel.id, to: me.id, fromMe: false, participant: null },
        {
          timestamp: channel.created + n * 3_600,
          body: `${channel.name}: post ${n}`,
          ack: 3,
          ackName: 'READ',
          _data: { engine: 'SANDBOX', serverId: 100 + n },
        },
      ),
    };
  });
  return posts.slice(-query.limit);
}

const ORDER: Readonly<Record<string, (a: SandboxChannel, b: SandboxChannel) => number>> & { RECOMMENDED: () => number } = {
  RECOMMENDED: () => 0,
  TRENDING: (a, b) => Number(b.verified) - Number(a.verified) || b.created - a.created,
  POPULAR: (a, b) => b.subscribers - a.subscribers,
  NEW: (a, b) => b.created - a.created,
};

/** The directory, filtered and ordered, a page at a time; the cursor is the offset, opaque to clients. */
export async function searchChannels(side: SandboxSide, query: ChannelSearchArgs): Promise<ChannelListResult> {
  side.requireWorking();
  const categories = new Set(query.categories);
  let found = side.world.channels.listed().filter((channel) => categories.size === 0 || categories.has(channel.category));
  if (query.by === 'view') {
    const countries = new Set(query.countries);
    found = found.filter((channel) => countries.size === 0 || countries.has(channel.country)).sort(ORDER[query.view] ?? ORDER.RECOMMENDED);
  } else {
    const text = query.text.toLowerCase();
    found = found.filter((channel) => `${channel.name}\n${channel.description ?? ''}`.toLowerCase().includes(text));
  }
  const start = offsetOf(query.startCursor);
  const page = found.slice(start, start + query.limit);
  const end = start + page.length;
  return {
    page: {
      startCursor: query.startCursor === '' ? null : query.startCursor,
      endCursor: end < found.length ? cursorOf(end) : null,
      hasNextPage: end < found.length,
      hasPreviousPage: start > 0,
    },
    channels: page.map(publicInfo),
  };
}

function cursorOf(offset: number): string {
  return Buffer.from(`offset:${offset}`).toString('base64url');
}

function offsetOf(cursor: string): number {
  if (cursor === '') return 0;
  const match = /^offset:(\d{1,6})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!match) throw invalidField('startCursor', 'must be empty or the endCursor of an earlier page');
  return Number(match[1]);
}
