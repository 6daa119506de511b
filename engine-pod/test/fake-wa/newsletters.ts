import { randomBytes } from 'node:crypto';
import { type BinaryNode, getBinaryNodeChild, proto } from '@whiskeysockets/baileys';
import type { IqAnswer } from './iq-answers.js';

/** One post of a channel, as `message_updates` lists it. */
export interface FakeNewsletterPost {
  readonly serverId: number;
  /** Unix seconds. */
  readonly t: number;
  readonly message: proto.IMessage;
  readonly views: number;
  readonly reactions: Readonly<Record<string, number>>;
}

/** A channel (newsletter) as the service keeps it: its public profile, its owner, who follows and who muted it. */
export interface FakeNewsletter {
  readonly id: string;
  name: string;
  description: string;
  readonly invite: string;
  /** The picture's media path, once its owner set one. */
  picture: string | null;
  readonly verified: boolean;
  /** Followers other than the accounts of this server (the directory's audience). */
  readonly audience: number;
  /** Unix seconds. */
  readonly created: number;
  /** The owning account's number; null for channels of others. */
  readonly owner: string | null;
  readonly followers: Set<string>;
  readonly muted: Set<string>;
  readonly posts: FakeNewsletterPost[];
}

/**
 * The query ids of the `w:mex` GraphQL queries the clients send (Baileys' `QueryIds`, whatsmeow's
 * newsletter.go for the subscribed list, which Baileys lacks), and the field of `data` each answer is under.
 */
const QUERIES: Readonly<Record<string, { readonly op: string; readonly path: string }>> = {
  '8823471724422422': { op: 'create', path: 'xwa2_newsletter_create' },
  '6563316087068696': { op: 'metadata', path: 'xwa2_newsletter' },
  '24404358912487870': { op: 'follow', path: 'xwa2_newsletter_join_v2' },
  '9767147403369991': { op: 'unfollow', path: 'xwa2_newsletter_leave_v2' },
  '29766401636284406': { op: 'mute', path: 'xwa2_newsletter_mute_v2' },
  '9864994326891137': { op: 'unmute', path: 'xwa2_newsletter_unmute_v2' },
  '30062808666639665': { op: 'delete', path: 'xwa2_newsletter_delete_v2' },
  '24250201037901610': { op: 'update', path: 'xwa2_newsletter_update' },
  // whatsmeow's (WhatsApp Web's) ids for the same operations: its mutations' answers are not read.
  '6388546374527196': { op: 'subscribed', path: 'xwa2_newsletter_subscribed' },
  '6234210096708695': { op: 'create', path: 'xwa2_newsletter_create' },
  '9926858900719341': { op: 'follow', path: 'xwa2_newsletter_join_v2' },
  '6392786840836363': { op: 'unfollow', path: 'xwa2_newsletter_leave_v2' },
  '6274038279359549': { op: 'mute', path: 'xwa2_newsletter_update' },
  '6068417879924485': { op: 'unmute', path: 'xwa2_newsletter_update' },
};

function hasFile(message: proto.IMessage): boolean {
  return !!(message.imageMessage ?? message.videoMessage ?? message.audioMessage ?? message.documentMessage ?? message.stickerMessage);
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** A GraphQL answer in the iq's `result` child, as the service sends both data and errors. */
function graphql(body: unknown): IqAnswer {
  return { content: [{ tag: 'result', attrs: {}, content: Buffer.from(JSON.stringify(body)) }] };
}

function graphqlError(code: number, message: string): IqAnswer {
  return graphql({ data: null, errors: [{ message, extensions: { error_code: code } }] });
}

/**
 * Channels (WhatsApp newsletters) at the protocol level: `w:mex` GraphQL queries by query id
 * (create, metadata by jid or invite code, join/leave, mute/unmute, delete by its owner, picture
 * updates, the account's subscribed list) and `newsletter` iqs for a channel's posts
 * (`message_updates`) and live updates. Tests add other people's channels and posts with `add`/`post`.
 */
export class FakeNewsletters {
  private readonly byId = new Map<string, FakeNewsletter>();
  private readonly deleted = new Set<string>();
  private nextServerId = 100;

  add(fields: Partial<Omit<FakeNewsletter, 'followers' | 'muted' | 'posts'>> & { readonly name: string }): FakeNewsletter {
    const newsletter: FakeNewsletter = {
      id: `120363${String(Date.now()).slice(-8)}${String(randomBytes(2).readUInt16BE(0) % 10_000).padStart(4, '0')}@newsletter`,
      description: '',
      invite: `0029Va${randomBytes(18).toString('base64url').replace(/[-_]/g, 'A').slice(0, 18)}`,
      picture: null,
      verified: false,
      audience: 0,
      created: nowSeconds(),
      owner: null,
      ...fields,
      followers: new Set(),
      muted: new Set(),
      posts: [],
    };
    this.byId.set(newsletter.id, newsletter);
    return newsletter;
  }

  /** A channel the service has (not deleted), by id. */
  get(id: string): FakeNewsletter | undefined {
    return this.deleted.has(id) ? undefined : this.byId.get(id);
  }

  /** A post of `id`'s owner: a text message (or any content) with its views and reactions. */
  post(id: string, message: proto.IMessage | string, extra: { views?: number; reactions?: Record<string, number> } = {}): FakeNewsletterPost {
    const newsletter = this.get(id);
    if (!newsletter) throw new Error(`no channel ${id}`);
    const post: FakeNewsletterPost = {
      serverId: this.nextServerId++,
      t: nowSeconds(),
      message: typeof message === 'string' ? { conversation: message } : message,
      views: extra.views ?? 0,
      reactions: extra.reactions ?? {},
    };
    newsletter.posts.push(post);
    return post;
  }

  /** `w:mex`: null for a query id the fake does not know. `me` is the asking account's number. */
  answerMex(me: string, iq: BinaryNode): IqAnswer {
    const query = getBinaryNodeChild(iq, 'query');
    const known = QUERIES[query?.attrs.query_id ?? ''];
    if (!query || !known) return null;
    const { variables } = JSON.parse(Buffer.from(query.content as Uint8Array).toString()) as { variables: Record<string, any> };
    const data = (value: unknown) => graphql({ data: { [known.path]: value } });
    if (known.op === 'create') {
      // Baileys: `input` {name, description}; whatsmeow: `newsletter_input`, with the picture (a JPEG, base64).
      const input = (variables.input ?? variables.newsletter_input) as { name: string; description?: string | null; picture?: string };
      const made = this.add({ name: input.name, description: input.description ?? '', owner: me });
      if (input.picture) made.picture = `/v/t61.24694-24/${randomBytes(8).toString('hex')}.jpg`;
      return data(this.metadata(made, me));
    }
    if (known.op === 'subscribed') {
      const mine = [...this.byId.values()].filter((n) => !this.deleted.has(n.id) && (n.owner === me || n.followers.has(me)));
      return data(mine.map((n) => this.metadata(n, me)));
    }
    const newsletter =
      known.op === 'metadata' ? this.find(variables.input as { key: string; type: string }) : this.get(String(variables.newsletter_id));
    if (!newsletter) return graphqlError(404, 'Not Found');
    const role = this.role(newsletter, me);
    switch (known.op) {
      case 'metadata':
        return data(this.metadata(newsletter, me));
      case 'follow':
        if (role === 'GUEST') newsletter.followers.add(me);
        return data({ id: newsletter.id });
      case 'unfollow':
        if (role === 'OWNER') return graphqlError(403, 'The owner cannot leave the channel');
        newsletter.followers.delete(me);
        return data({ id: newsletter.id });
      case 'mute':
      case 'unmute':
        if (known.op === 'mute') newsletter.muted.add(me);
        else newsletter.muted.delete(me);
        return data({ id: newsletter.id, mute: known.op === 'mute' ? 'ON' : 'OFF' });
      case 'delete':
        if (role !== 'OWNER') return graphqlError(403, 'Only the owner can delete the channel');
        this.deleted.add(newsletter.id);
        return data({ id: newsletter.id, state: { type: 'DELETED' } });
      default: {
        // update: the owner's name, description or picture (base64 JPEG; '' removes it).
        if (role !== 'OWNER') return graphqlError(403, 'Only admins can change the channel');
        const updates = variables.updates as { name?: string; description?: string; picture?: string };
        if (updates.name !== undefined) newsletter.name = updates.name;
        if (updates.description !== undefined) newsletter.description = updates.description;
        if (updates.picture !== undefined) newsletter.picture = updates.picture ? `/v/t61.24694-24/${randomBytes(8).toString('hex')}.jpg` : null;
        return data(this.metadata(newsletter, me));
      }
    }
  }

  /**
   * `newsletter` iqs: a channel's latest posts, `count` of them, as `message_updates` to the channel
   * (Baileys) or `messages` naming it (`type` jid or invite) to the server (whatsmeow); live updates.
   */
  answerNewsletterIq(iq: BinaryNode): IqAnswer {
    const named = getBinaryNodeChild(iq, 'messages');
    const newsletter = named
      ? named.attrs.type === 'invite'
        ? this.find({ type: 'INVITE', key: named.attrs.key ?? '' })
        : this.get(named.attrs.jid ?? '')
      : this.get(iq.attrs.to ?? '');
    if (!newsletter) return { error: { code: '404', text: 'item-not-found' } };
    const live = getBinaryNodeChild(iq, 'live_updates');
    if (live) return { content: [{ tag: 'live_updates', attrs: { duration: '300' } }] };
    const updates = getBinaryNodeChild(iq, 'message_updates') ?? named;
    if (!updates) return null;
    const count = Number(updates.attrs.count ?? '50');
    const messages = newsletter.posts.slice(-count).map((post): BinaryNode => ({
      tag: 'message',
      // The service marks a post with a file `media` (its `plaintext` part names the unencrypted file: direct path, sha256, no mediaKey).
      attrs: { server_id: String(post.serverId), id: `NL${post.serverId}`, t: String(post.t), type: hasFile(post.message) ? 'media' : 'text' },
      content: [
        { tag: 'plaintext', attrs: {}, content: proto.Message.encode(post.message).finish() },
        { tag: 'views_count', attrs: { count: String(post.views) } },
        {
          tag: 'reactions',
          attrs: {},
          content: Object.entries(post.reactions).map(([code, count]) => ({ tag: 'reaction', attrs: { code, count: String(count) } })),
        },
      ],
    }));
    const list: BinaryNode = { tag: 'messages', attrs: {}, content: messages };
    return { content: [named ? list : { tag: 'message_updates', attrs: {}, content: [list] }] };
  }

  private find(input: { key: string; type: string }): FakeNewsletter | undefined {
    if (input.type === 'JID') return this.get(input.key);
    return [...this.byId.values()].find((n) => n.invite === input.key && !this.deleted.has(n.id));
  }

  private role(newsletter: FakeNewsletter, me: string): 'OWNER' | 'SUBSCRIBER' | 'GUEST' {
    if (newsletter.owner === me) return 'OWNER';
    return newsletter.followers.has(me) ? 'SUBSCRIBER' : 'GUEST';
  }

  /** The shape both clients parse (whatsmeow's `types.NewsletterMetadata`; Baileys' create and metadata answers). */
  private metadata(newsletter: FakeNewsletter, me: string): unknown {
    const text = (value: string) => ({ id: String(newsletter.created), text: value, update_time: String(newsletter.created * 1_000_000) });
    const picture = { id: newsletter.picture ? '1' : '', type: 'IMAGE', direct_path: newsletter.picture ?? '' };
    return {
      id: newsletter.id,
      state: { type: 'ACTIVE' },
      thread_metadata: {
        creation_time: String(newsletter.created),
        invite: newsletter.invite,
        handle: null,
        name: text(newsletter.name),
        description: text(newsletter.description),
        subscribers_count: String(newsletter.audience + newsletter.followers.size),
        verification: newsletter.verified ? 'VERIFIED' : 'UNVERIFIED',
        picture,
        preview: picture,
        settings: { reaction_codes: { value: 'ALL' } },
      },
      viewer_metadata: { mute: newsletter.muted.has(me) ? 'ON' : 'OFF', role: this.role(newsletter, me) },
    };
  }
}
