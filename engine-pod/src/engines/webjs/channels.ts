import {
  CHANNEL_INVITE_PREFIX,
  type Channel,
  type ChannelListResult,
  type ChannelRef,
  type ChannelRole,
  type ChannelSearchArgs,
} from '@switchboard/protocol';
import type { NewChannel } from '../../capabilities/channels.js';
import { CommandError, invalidField } from '../../command-error.js';
import type { WebjsDeps } from './deps.js';
import type { WebjsChannel, WebjsChannelData } from './webjs-client.js';
import { wid } from './webjs-ids.js';

function refuse(channel: Channel, why: string): CommandError {
  return new CommandError('WRONG_STATUS', `channel ${channel.id}: ${why}`, { channel: channel.id, role: channel.role });
}

/** The library's view numbers, by index. */
const VIEWS = ['RECOMMENDED', 'TRENDING', 'POPULAR', 'NEW'];

const ROLES: ReadonlySet<string> = new Set(['OWNER', 'ADMIN', 'SUBSCRIBER', 'GUEST']);

/** The invite code at the end of the library's link (`https://whatsapp.com/channel/<code>`). */
function inviteCodeOf(link: string): string {
  // The lookbehind starts the match at the first "/" of a run only: linear however long the run.
  return (
    link
      .replace(/(?<!\/)\/+$/, '')
      .split('/')
      .pop() ?? ''
  );
}

/**
 * A `Channel` in the interface's shape (protocol/src/channels.ts). WhatsApp Web's metadata has no
 * picture link the service would serve, so `picture` and `preview` are left out.
 */
export function toChannel(channel: WebjsChannelData): Channel {
  const metadata = channel.channelMetadata ?? {};
  const role = (metadata.membershipType ?? 'guest').toUpperCase();
  const description = metadata.description ?? channel.description;
  return {
    id: wid(channel.id),
    name: channel.name ?? '',
    invite: CHANNEL_INVITE_PREFIX + (metadata.inviteCode ?? ''),
    ...(description ? { description } : {}),
    verified: metadata.verified === true,
    subscribersCount: Math.max(0, Math.trunc(Number(metadata.size ?? 0)) || 0),
    role: (ROLES.has(role) ? role : 'GUEST') as ChannelRole,
  };
}

/**
 * Channels (newsletters) with whatsapp-web.js's own functions: `getChannels`, `getChatById` and
 * `getChannelByInviteCode`, `createChannel`, `deleteChannel`, `subscribeToChannel` /
 * `unsubscribeFromChannel`, and `Channel.mute` / `unmute`. What WhatsApp Web refuses (the library
 * answers false) is an ENGINE_ERROR naming it; a channel it does not know is a 404. Deleting
 * (owner only) and unfollowing (not the owner) are checked against the account's role first.
 */
export class WebjsChannels {
  constructor(private readonly deps: WebjsDeps) {}

  async list(role: Exclude<ChannelRole, 'GUEST'> | undefined): Promise<Channel[]> {
    const channels = await this.deps.client().getChannels().catch(this.deps.engineError('list its channels'));
    return channels.map(toChannel).filter((channel) => role === undefined || channel.role === role);
  }

  async create(request: NewChannel): Promise<Channel> {
    const client = this.deps.client();
    const { MessageMedia } = await this.deps.content();
    const picture = request.picture
      ? new MessageMedia(request.picture.mimetype, request.picture.data.toString('base64'), request.picture.filename)
      : null;
    const created = await client
      .createChannel(request.name, { description: request.description ?? null, picture })
      .catch(this.deps.engineError(`create channel '${request.name}'`));
    if (typeof created === 'string') {
      throw new CommandError('ENGINE_ERROR', `WEBJS could not create channel '${request.name}': ${created}`, { name: request.name });
    }
    return {
      id: wid(created.nid),
      name: created.title,
      invite: CHANNEL_INVITE_PREFIX + inviteCodeOf(created.inviteLink),
      ...(request.description ? { description: request.description } : {}),
      verified: false,
      subscribersCount: 0,
      role: 'OWNER',
    };
  }

  async get(ref: ChannelRef): Promise<Channel> {
    return toChannel(await this.find(ref));
  }

  async delete(id: string): Promise<void> {
    const channel = toChannel(await this.find({ by: 'id', key: id }));
    if (channel.role !== 'OWNER') throw refuse(channel, `only its owner may delete it; the account is its ${channel.role}`);
    const done = await this.deps
      .client()
      .deleteChannel(id)
      .catch(this.deps.engineError(`delete channel ${id}`));
    if (!done) throw this.refused(`delete channel ${id} (only its owner may)`, id);
  }

  /** Its owner cannot leave a channel (the service refuses it too), as on SANDBOX and NOWEB; a guest's unfollow changes nothing. */
  async follow(id: string, follow: boolean): Promise<void> {
    const channel = toChannel(await this.find({ by: 'id', key: id }));
    if (!follow && channel.role === 'OWNER') throw refuse(channel, 'its owner cannot unfollow it; delete it instead');
    if (!follow && channel.role === 'GUEST') return;
    const client = this.deps.client();
    const doing = `${follow ? 'follow' : 'unfollow'} channel ${id}`;
    const done = await (follow ? client.subscribeToChannel(id) : client.unsubscribeFromChannel(id)).catch(this.deps.engineError(doing));
    if (!done) throw this.refused(doing, id);
  }

  async mute(id: string, mute: boolean): Promise<void> {
    const channel = await this.find({ by: 'id', key: id });
    const doing = `${mute ? 'mute' : 'unmute'} channel ${id}`;
    const done = await (mute ? channel.mute() : channel.unmute()).catch(this.deps.engineError(doing));
    if (!done) throw this.refused(doing, id);
  }

  /**
   * The directory, with the library's `searchChannels`: one page of `limit` (it has no cursor, so
   * a `startCursor` is refused, and the page says no next one), without categories (refused too).
   */
  async search(query: ChannelSearchArgs): Promise<ChannelListResult> {
    if (query.startCursor !== '')
      throw invalidField('startCursor', 'WEBJS answers the first page only (whatsapp-web.js has no cursor); leave it empty');
    if (query.categories.length > 0) throw invalidField('categories', 'WEBJS cannot filter by category (whatsapp-web.js has none); leave it empty');
    const options =
      query.by === 'text'
        ? { searchText: query.text, limit: query.limit }
        : { view: VIEWS.indexOf(query.view), countryCodes: query.countries, limit: query.limit };
    const found = await this.deps.client().searchChannels(options).catch(this.deps.engineError('search the channel directory'));
    return {
      page: { startCursor: null, endCursor: null, hasNextPage: false, hasPreviousPage: false },
      channels: found.slice(0, query.limit).map((channel) => {
        const { role: _role, ...info } = toChannel(channel);
        return info;
      }),
    };
  }

  /** The channel by id or invite code; NOT_FOUND when WhatsApp Web knows none. */
  private async find(ref: ChannelRef): Promise<WebjsChannel> {
    const client = this.deps.client();
    const found =
      ref.by === 'id'
        ? // `getChatById` of a `@newsletter` id gives the library's `Channel`.
          ((await client.getChatById(ref.key).catch(this.deps.engineError(`read channel ${ref.key}`))) as unknown as WebjsChannel | undefined)
        : await client.getChannelByInviteCode(ref.key).catch(this.deps.engineError(`read channel ${ref.key}`));
    if (!found || found.isChannel === false) {
      throw new CommandError('NOT_FOUND', `WEBJS found no channel ${ref.key}`, { channel: ref.key });
    }
    return found;
  }

  private refused(doing: string, id: string): CommandError {
    return new CommandError('ENGINE_ERROR', `WEBJS could not ${doing}: WhatsApp Web refused`, { channel: id });
  }
}
