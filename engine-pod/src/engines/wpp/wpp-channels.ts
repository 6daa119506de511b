import {
  CHANNEL_INVITE_PREFIX,
  type Channel,
  type ChannelListResult,
  type ChannelRef,
  type ChannelRole,
  type ChannelSearchArgs,
} from '@switchboard/protocol';
import type { NewChannel } from '../../capabilities/channels.js';
import { CommandError } from '../../command-error.js';
import { catalogRefusal, notSupported } from '../../command-rules.js';
import { toChannel } from '../webjs/channels.js';
import type { WebjsChannelData } from '../webjs/webjs-client.js';
import type { WppPage } from './wpp-client.js';
import type { WppConnection } from './wpp-connection.js';
import { describeWppError } from './wpp-send-options.js';

/** What WPPConnect's `createNewsletter` (wa-js's `newsletter.create`) answers. */
export interface WppCreatedNewsletter {
  readonly idJid: string;
  readonly inviteCode: string;
  readonly name: string;
  readonly description: string | null;
}

/** The slice of WPPConnect's client (its newsletter layer) the channel operations use; the rest is wa-js in the page. */
export interface WppChannelsClient {
  readonly page: WppPage;
  createNewsletter(name: string, options: { description?: string; picture?: string }): Promise<WppCreatedNewsletter>;
  /** wa-js's `newsletter.destroy`: false when WhatsApp refused. */
  destroyNewsletter(id: string): Promise<boolean | undefined>;
  /** wa-js's `newsletter.mute` (WPPConnect's spelling): mutes only. */
  muteNesletter(id: string): Promise<unknown>;
}

/**
 * Channels (newsletters) on WPP, through WPPConnect's newsletter layer (`createNewsletter`,
 * `destroyNewsletter`, `muteNesletter`) and, for what it does not wrap, wa-js in the page:
 * `chat.list({onlyNewsletter})`, `newsletter.follow` / `unfollow` / `mute(id, false)` /
 * `search`, and WhatsApp's own metadata query (`whatsapp.functions.queryNewsletterMetadataByJid`)
 * to read one channel. wa-js has no lookup by invite code and searches by text only: those
 * answer 422. Deleting (owner only) and unfollowing (not the owner) are checked against the
 * account's role first, as on WEBJS.
 */
export class WppChannels {
  constructor(private readonly connection: WppConnection) {}

  async list(role: Exclude<ChannelRole, 'GUEST'> | undefined): Promise<Channel[]> {
    const channels = await this.client()
      .page.evaluate(listInPage)
      .catch((error: unknown) => this.failed('list its channels', error));
    return channels.map(toChannel).filter((channel) => role === undefined || channel.role === role);
  }

  async create(request: NewChannel): Promise<Channel> {
    const picture = request.picture ? `data:${request.picture.mimetype};base64,${request.picture.data.toString('base64')}` : undefined;
    const created = await this.client()
      .createNewsletter(request.name, { ...(request.description ? { description: request.description } : {}), ...(picture ? { picture } : {}) })
      .catch((error: unknown) => this.failed(`create channel '${request.name}'`, error));
    return {
      id: created.idJid,
      name: created.name,
      invite: CHANNEL_INVITE_PREFIX + created.inviteCode,
      ...(request.description ? { description: request.description } : {}),
      verified: false,
      subscribersCount: 0,
      role: 'OWNER',
    };
  }

  async get(ref: ChannelRef): Promise<Channel> {
    if (ref.by === 'invite') {
      throw notSupported(
        this.connection.context.session,
        'WPP',
        'finding a channel by its invite code (wa-js has no lookup by invite); ask by its id',
        {
          field: 'channel',
        },
      );
    }
    return this.find(ref.key);
  }

  async delete(id: string): Promise<void> {
    const channel = await this.find(id);
    if (channel.role !== 'OWNER') throw refuse(channel, `only its owner may delete it; the account is its ${channel.role}`);
    const done = await this.client()
      .destroyNewsletter(id)
      .catch((error: unknown) => this.failed(`delete channel ${id}`, error, id));
    if (done === false) throw new CommandError('ENGINE_ERROR', `WPP could not delete channel ${id}: WhatsApp Web refused`, { channel: id });
  }

  /** Its owner cannot leave a channel (the service refuses it too), as on WEBJS; a guest's unfollow changes nothing. */
  async follow(id: string, follow: boolean): Promise<void> {
    const channel = await this.find(id);
    if (!follow && channel.role === 'OWNER') throw refuse(channel, 'its owner cannot unfollow it; delete it instead');
    if (!follow && channel.role === 'GUEST') return;
    await this.client()
      .page.evaluate(followInPage, { id, follow })
      .catch((error: unknown) => this.failed(`${follow ? 'follow' : 'unfollow'} channel ${id}`, error, id));
  }

  /** wa-js mutes the channels the account has (its newsletter chats); another is NOT_FOUND. */
  async mute(id: string, mute: boolean): Promise<void> {
    const client = this.client();
    await (mute ? client.muteNesletter(id) : client.page.evaluate(unmuteInPage, id)).catch((error: unknown) =>
      this.failed(`${mute ? 'mute' : 'unmute'} channel ${id}`, error, id),
    );
  }

  /**
   * The directory by text, with wa-js's `newsletter.search`: its categories and its cursor (the
   * servers' `endCursor`). A search by view is the catalog's refusal: wa-js searches by text only.
   */
  async search(query: ChannelSearchArgs): Promise<ChannelListResult> {
    if (query.by === 'view') throw catalogRefusal(this.connection.context.session, 'WPP', 'channels.search', 'view');
    const found = await this.client()
      .page.evaluate(searchInPage, {
        text: query.text,
        options: { categories: query.categories, limit: query.limit, ...(query.startCursor ? { cursorToken: query.startCursor } : {}) },
      })
      .catch((error: unknown) => this.failed('search the channel directory', error));
    const endCursor = found.pageInfo?.hasNextPage ? (found.pageInfo.endCursor ?? null) : null;
    return {
      page: {
        startCursor: query.startCursor === '' ? null : query.startCursor,
        endCursor,
        hasNextPage: endCursor !== null,
        hasPreviousPage: query.startCursor !== '',
      },
      channels: found.newsletters.slice(0, query.limit).map((channel) => ({
        id: channel.idJid,
        name: channel.name,
        invite: CHANNEL_INVITE_PREFIX + channel.inviteCode,
        ...(channel.description ? { description: channel.description } : {}),
        verified: channel.verification.toUpperCase() === 'VERIFIED',
        subscribersCount: channel.subscribersCount,
      })),
    };
  }

  /** The channel as WhatsApp's servers answer its metadata now; NOT_FOUND when they know none. */
  private async find(id: string): Promise<Channel> {
    const found = await this.client()
      .page.evaluate(queryInPage, id)
      .catch((error: unknown) => this.failed(`read channel ${id}`, error, id));
    if (!found) throw new CommandError('NOT_FOUND', `WPP found no channel ${id}`, { channel: id });
    return toChannel(found);
  }

  /** wa-js's refusals: a channel it has no chat of is NOT_FOUND, the rest ENGINE_ERROR naming what failed. */
  private failed(doing: string, error: unknown, id?: string): never {
    const message = describeWppError(error);
    if (id !== undefined && /chat_not_found|Chat not found/i.test(message))
      throw new CommandError('NOT_FOUND', `WPP found no channel ${id} among the account's`, { channel: id });
    throw new CommandError('ENGINE_ERROR', `WPP could not ${doing}: ${message}`, id === undefined ? undefined : { channel: id });
  }

  private client(): WppChannelsClient {
    return this.connection.workingClient();
  }
}

function refuse(channel: Channel, why: string): CommandError {
  return new CommandError('WRONG_STATUS', `channel ${channel.id}: ${why}`, { channel: channel.id, role: channel.role });
}

/** A channel of the directory as wa-js's `newsletter.search` answers it. */
interface WppFoundNewsletter {
  readonly idJid: string;
  readonly name: string;
  readonly description: string;
  readonly subscribersCount: number;
  readonly verification: string;
  readonly inviteCode: string;
}

interface WppSearchResult {
  readonly newsletters: readonly WppFoundNewsletter[];
  readonly pageInfo?: { readonly hasNextPage?: boolean; readonly endCursor?: string } | undefined;
}

/** WhatsApp Web's newsletter metadata (a model's attributes, or a query's mixins read into them). */
interface WppNewsletterMetadata {
  readonly name?: string;
  readonly description?: string;
  readonly inviteCode?: string;
  readonly membershipType?: string;
  readonly verified?: boolean;
  readonly size?: number;
}

/** What the functions run in the page read of it: wa-js (`window.WPP`). */
interface WppChannelsPage {
  WPP: {
    chat: {
      list(options: {
        onlyNewsletter: true;
      }): Promise<{ id: { _serialized: string }; name?: string; newsletterMetadata?: { serialize(): WppNewsletterMetadata } }[]>;
    };
    newsletter: {
      follow(id: string): Promise<boolean>;
      unfollow(id: string): Promise<boolean>;
      mute(id: string, value: boolean): Promise<unknown>;
      search(query: string, options: { categories: string[]; limit: number; cursorToken?: string }): Promise<WppSearchResult>;
    };
    whatsapp: { functions: { queryNewsletterMetadataByJid(jid: string, attributes: Record<string, boolean>): Promise<WppMetadataResponse> } };
  };
}

/** WhatsApp's answer to a metadata query, in its mixins. */
interface WppMetadataResponse {
  readonly idJid: string;
  readonly newsletterNameMetadataMixin?: { readonly nameElementValue?: string };
  readonly newsletterDescriptionMetadataMixin?: { readonly descriptionQueryDescriptionResponseMixin?: { readonly elementValue?: string } };
  readonly newsletterInviteLinkMetadataMixin?: { readonly inviteCode?: string };
  readonly newsletterSubscribersMetadataMixin?: { readonly subscribersCount?: number };
  readonly newsletterVerificationMetadataMixin?: { readonly verificationState?: string };
  readonly newsletterMembershipMetadataMixin?: { readonly membershipType?: string };
}

// Run in the page (serialized by puppeteer): each reads only its argument and `window.WPP`.

async function listInPage(): Promise<WebjsChannelData[]> {
  const chats = await (globalThis as unknown as WppChannelsPage).WPP.chat.list({ onlyNewsletter: true });
  return chats.map((chat) => ({ id: chat.id._serialized, name: chat.name ?? '', channelMetadata: chat.newsletterMetadata?.serialize() ?? {} }));
}

/** The metadata query for every field the interface's Channel has; null when the servers know no such channel (404). */
async function queryInPage(id: string): Promise<WebjsChannelData | null> {
  const { functions } = (globalThis as unknown as WppChannelsPage).WPP.whatsapp;
  const attributes = { name: true, description: true, inviteLink: true, subscribers: true, verification: true, membership: true, picture: false };
  let answer: WppMetadataResponse;
  try {
    answer = await functions.queryNewsletterMetadataByJid(id, attributes);
  } catch (error) {
    if ((error as { statusCode?: number } | null)?.statusCode === 404) return null;
    throw error;
  }
  const description = answer.newsletterDescriptionMetadataMixin?.descriptionQueryDescriptionResponseMixin?.elementValue;
  return {
    id: answer.idJid,
    name: answer.newsletterNameMetadataMixin?.nameElementValue ?? '',
    channelMetadata: {
      ...(description ? { description } : {}),
      ...(answer.newsletterInviteLinkMetadataMixin?.inviteCode ? { inviteCode: answer.newsletterInviteLinkMetadataMixin.inviteCode } : {}),
      membershipType: answer.newsletterMembershipMetadataMixin?.membershipType ?? 'guest',
      verified: answer.newsletterVerificationMetadataMixin?.verificationState === 'verified',
      size: answer.newsletterSubscribersMetadataMixin?.subscribersCount ?? 0,
    },
  };
}

async function followInPage({ id, follow }: { id: string; follow: boolean }): Promise<void> {
  const { newsletter } = (globalThis as unknown as WppChannelsPage).WPP;
  await (follow ? newsletter.follow(id) : newsletter.unfollow(id));
}

async function unmuteInPage(id: string): Promise<void> {
  await (globalThis as unknown as WppChannelsPage).WPP.newsletter.mute(id, false);
}

function searchInPage({
  text,
  options,
}: {
  text: string;
  options: { categories: string[]; limit: number; cursorToken?: string };
}): Promise<WppSearchResult> {
  return (globalThis as unknown as WppChannelsPage).WPP.newsletter.search(text, options).then((result) => ({
    // Without wa-js's `_raw` copy of each answer: only what the operation reads crosses back.
    newsletters: result.newsletters.map(({ idJid, name, description, subscribersCount, verification, inviteCode }) => ({
      idJid,
      name,
      description,
      subscribersCount,
      verification,
      inviteCode,
    })),
    pageInfo: result.pageInfo,
  }));
}
