import { CHANNEL_INVITE_PREFIX, type Channel, type ChannelMessage, type ChannelRef, type ChannelRole, type Media } from '@switchboard/protocol';
import {
  type BinaryNode,
  generateProfilePicture,
  getBinaryNodeChild,
  getBinaryNodeChildren,
  proto,
  S_WHATSAPP_NET,
  type WAMessage,
} from '@whiskeysockets/baileys';
import type { NewChannel } from '../../capabilities/channels.js';
import { CommandError, invalidField, reasonOf } from '../../command-error.js';
import { toMessageRecord } from './message-record.js';
import type { Account } from './outgoing.js';

/**
 * The account's subscribed channels: a `w:mex` query Baileys has no function for. Its id is the one
 * WhatsApp Web uses and whatsmeow sends (`querySubscribedNewsletters`, newsletter.go); the answer is
 * a list of the same metadata `newsletterMetadata` reads.
 */
const SUBSCRIBED_QUERY = '6388546374527196';
const MEDIA_HOST = 'https://mmg.whatsapp.net';

/** A channel's metadata as the service answers it (Baileys passes it through as it came). */
interface RawNewsletter {
  readonly id: string;
  readonly thread_metadata?: {
    readonly invite?: string;
    readonly name?: { readonly text?: string };
    readonly description?: { readonly text?: string };
    readonly subscribers_count?: string;
    readonly verification?: string;
    readonly picture?: { readonly direct_path?: string } | null;
    readonly preview?: { readonly direct_path?: string } | null;
  };
  readonly viewer_metadata?: { readonly role?: string } | null;
}

export interface NowebChannelsDeps {
  account(): Account;
  /** A post's file, downloaded and kept (channel-media.ts); null when it has none or the download fails. */
  postMedia(postId: string, content: proto.IMessage | null): Promise<Media | null>;
}

/** The service's refusal code (`Boom` from a GraphQL error: its `error_code`; an error iq: its `code`). */
function statusOf(error: unknown): number | undefined {
  const boom = error as { output?: { statusCode?: number }; data?: unknown } | null;
  if (typeof boom?.data === 'number') return boom.data;
  const code = (boom?.data as { attrs?: { code?: string } } | undefined)?.attrs?.code;
  return code ? Number(code) : boom?.output?.statusCode;
}

function failed(doing: string, key: string, error: unknown): CommandError {
  if (error instanceof CommandError) return error;
  const status = statusOf(error);
  if (status === 404) return new CommandError('NOT_FOUND', `NOWEB could not ${doing}: the service knows no channel ${key}`, { channel: key });
  if (status === 401 || status === 403) return new CommandError('WRONG_STATUS', `NOWEB could not ${doing}: ${reasonOf(error)}`, { channel: key });
  return new CommandError('ENGINE_ERROR', `NOWEB could not ${doing}: ${reasonOf(error)}`, { channel: key });
}

const ROLES: ReadonlySet<string> = new Set(['OWNER', 'ADMIN', 'SUBSCRIBER', 'GUEST']);

/** The service's metadata in the interface's shape (protocol/src/channels.ts); pictures are links to the media host. */
export function toChannel(raw: RawNewsletter): Channel {
  const thread = raw.thread_metadata ?? {};
  const picture = thread.picture?.direct_path;
  const preview = thread.preview?.direct_path || picture;
  const description = thread.description?.text;
  const role = raw.viewer_metadata?.role ?? 'GUEST';
  return {
    id: raw.id,
    name: thread.name?.text ?? '',
    invite: CHANNEL_INVITE_PREFIX + (thread.invite ?? ''),
    ...(preview ? { preview: MEDIA_HOST + preview } : {}),
    ...(picture ? { picture: MEDIA_HOST + picture } : {}),
    ...(description ? { description } : {}),
    verified: thread.verification === 'VERIFIED',
    subscribersCount: Number(thread.subscribers_count ?? 0) || 0,
    role: (ROLES.has(role) ? role : 'GUEST') as ChannelRole,
  };
}

/** A post's message proto, from its `plaintext` child (channel posts are not end-to-end encrypted). */
function plaintextOf(node: BinaryNode): proto.IMessage | null {
  const plaintext = getBinaryNodeChild(node, 'plaintext')?.content;
  return plaintext instanceof Uint8Array ? proto.Message.decode(plaintext) : null;
}

/** One post of `message_updates` (a `message` with its `plaintext` content, `views_count` and `reactions`). */
export function toChannelMessage(channelId: string, node: BinaryNode, me: Account['me']): ChannelMessage {
  const msg: WAMessage = {
    key: { remoteJid: channelId, fromMe: false, id: node.attrs.server_id ?? node.attrs.id ?? '' },
    message: plaintextOf(node),
    messageTimestamp: Number(node.attrs.t ?? 0),
  };
  const reactions: Record<string, number> = {};
  for (const reaction of getBinaryNodeChildren(getBinaryNodeChild(node, 'reactions'), 'reaction')) {
    if (reaction.attrs.code) reactions[reaction.attrs.code] = Number(reaction.attrs.count ?? 0) || 0;
  }
  return {
    reactions,
    viewCount: Number(getBinaryNodeChild(node, 'views_count')?.attrs.count ?? 0) || 0,
    message: toMessageRecord(msg, { chatId: channelId, participant: null }, me, 'app'),
  };
}

/**
 * Channels (newsletters) on NOWEB with Baileys' newsletter functions, which are `w:mex` GraphQL
 * queries, and the `newsletter` iq for a channel's posts. The directory search has no query in
 * Baileys, so NOWEB refuses it (the catalog's exclusion).
 */
export class NowebChannels {
  constructor(private readonly deps: NowebChannelsDeps) {}

  async list(role: Exclude<ChannelRole, 'GUEST'> | undefined): Promise<Channel[]> {
    const { socket } = this.deps.account();
    const answer: unknown = await socket
      .query({
        tag: 'iq',
        attrs: { id: socket.generateMessageTag(), type: 'get', to: S_WHATSAPP_NET, xmlns: 'w:mex' },
        content: [{ tag: 'query', attrs: { query_id: SUBSCRIBED_QUERY }, content: Buffer.from(JSON.stringify({ variables: {} })) }],
      })
      .catch((error: unknown) => {
        throw failed('list its channels', 'subscribed', error);
      });
    const result = getBinaryNodeChild(answer as BinaryNode, 'result')?.content;
    const body = result
      ? (JSON.parse(Buffer.from(result as Uint8Array).toString()) as { data?: { xwa2_newsletter_subscribed?: RawNewsletter[] } })
      : {};
    return (body.data?.xwa2_newsletter_subscribed ?? []).map(toChannel).filter((channel) => role === undefined || channel.role === role);
  }

  /**
   * Created by name and description; the picture, when given, is set right after, as the apps do.
   * It is made the service's JPEG first (what newsletterUpdatePicture does), so that a file that is
   * no image is refused before a channel exists.
   */
  async create(request: NewChannel): Promise<Channel> {
    const { socket } = this.deps.account();
    let picture: string | null = null;
    if (request.picture) {
      try {
        picture = (await generateProfilePicture(request.picture.data)).img.toString('base64');
      } catch (error) {
        throw invalidField('picture', `must be an image NOWEB can read (${reasonOf(error)})`);
      }
    }
    try {
      const created = await socket.newsletterCreate(request.name, request.description);
      if (picture) await socket.newsletterUpdate(created.id, { picture });
      return await this.get({ by: 'id', key: created.id });
    } catch (error) {
      throw failed('create a channel', request.name, error);
    }
  }

  async get(ref: ChannelRef): Promise<Channel> {
    const { socket } = this.deps.account();
    let raw: unknown;
    try {
      raw = await socket.newsletterMetadata(ref.by === 'id' ? 'jid' : 'invite', ref.key);
    } catch (error) {
      throw failed(`read channel ${ref.key}`, ref.key, error);
    }
    if (!raw) throw new CommandError('NOT_FOUND', `NOWEB could not read channel ${ref.key}: the service knows no such channel`, { channel: ref.key });
    return toChannel(raw as RawNewsletter);
  }

  /** Only its owner may delete a channel: asked first, so that the refusal names the account's role. */
  async delete(id: string): Promise<void> {
    const channel = await this.get({ by: 'id', key: id });
    if (channel.role !== 'OWNER') throw refuse(channel, `only its owner may delete it; the account is its ${channel.role}`);
    await this.ask('delete', id, (socket) => socket.newsletterDelete(id));
  }

  async follow(id: string): Promise<void> {
    await this.ask('follow', id, (socket) => socket.newsletterFollow(id));
  }

  /** Its owner cannot leave a channel (the service refuses it too): asked first for the same refusal as SANDBOX's. */
  async unfollow(id: string): Promise<void> {
    const channel = await this.get({ by: 'id', key: id });
    if (channel.role === 'OWNER') throw refuse(channel, 'its owner cannot unfollow it; delete it instead');
    if (channel.role === 'GUEST') return;
    await this.ask('unfollow', id, (socket) => socket.newsletterUnfollow(id));
  }

  async mute(id: string, muted: boolean): Promise<void> {
    await this.ask(muted ? 'mute' : 'unmute', id, (socket) => (muted ? socket.newsletterMute(id) : socket.newsletterUnmute(id)));
  }

  /**
   * The latest `limit` posts, oldest first (`message_updates`, what Baileys' newsletterFetchMessages
   * sends). A channel named by invite is looked up first for its id. With `downloadMedia`, each
   * post's file is downloaded (one at a time) and its record's `media` set.
   */
  async posts(query: { readonly channel: ChannelRef; readonly limit: number; readonly downloadMedia: boolean }): Promise<ChannelMessage[]> {
    const id = query.channel.by === 'id' ? query.channel.key : (await this.get(query.channel)).id;
    const account = this.deps.account();
    const answer = await this.ask('read the posts of', id, (socket): Promise<BinaryNode> =>
      socket.query({
        tag: 'iq',
        attrs: { id: socket.generateMessageTag(), type: 'get', xmlns: 'newsletter', to: id },
        content: [{ tag: 'message_updates', attrs: { count: String(query.limit) } }],
      }),
    );
    const messages = getBinaryNodeChild(getBinaryNodeChild(answer, 'message_updates'), 'messages');
    const posts = getBinaryNodeChildren(messages, 'message')
      .map((node) => ({ node, post: toChannelMessage(id, node, account.me) }))
      .sort((a, b) => a.post.message.timestamp - b.post.message.timestamp)
      .slice(-query.limit);
    if (!query.downloadMedia) return posts.map(({ post }) => post);
    const withMedia: ChannelMessage[] = [];
    for (const { node, post } of posts) {
      if (!post.message.hasMedia) {
        withMedia.push(post);
        continue;
      }
      const media = await this.deps.postMedia(post.message.id, plaintextOf(node));
      withMedia.push({ ...post, message: { ...post.message, media } });
    }
    return withMedia;
  }

  private async ask<T>(doing: string, id: string, query: (socket: Account['socket']) => Promise<T>): Promise<T> {
    const { socket } = this.deps.account();
    try {
      return await query(socket);
    } catch (error) {
      throw failed(`${doing} channel ${id}`, id, error);
    }
  }
}

function refuse(channel: Channel, why: string): CommandError {
  return new CommandError('WRONG_STATUS', `channel ${channel.id}: ${why}`, { channel: channel.id, role: channel.role });
}
