import type { Channel, ChannelListResult, ChannelMessage, ChannelRef, ChannelRole, ChannelSearchArgs } from '@switchboard/protocol';
import type { MediaFile } from '../media/media-store.js';

/** A channel to create, its picture already downloaded or decoded by the host (media/resolve-file.ts). */
export interface NewChannel {
  readonly name: string;
  readonly description?: string | undefined;
  readonly picture: MediaFile | null;
}

/**
 * Channels (WhatsApp newsletters), for engines whose messaging service has them. Each method is
 * optional: an engine without it answers 422 NOT_SUPPORTED naming itself (dispatch/channels.ts).
 * All of them need WORKING. A channel the service does not know is a 404 (NOT_FOUND).
 */
export interface ChannelsCapability {
  /** The channels the account owns, administers or follows; only those with `role` when given. */
  channels?(role: Exclude<ChannelRole, 'GUEST'> | undefined): Promise<Channel[]>;
  createChannel?(channel: NewChannel): Promise<Channel>;
  channel?(ref: ChannelRef): Promise<Channel>;
  /** Only the owner may delete a channel. */
  deleteChannel?(id: string): Promise<void>;
  followChannel?(id: string): Promise<void>;
  unfollowChannel?(id: string): Promise<void>;
  muteChannel?(id: string): Promise<void>;
  unmuteChannel?(id: string): Promise<void>;
  /** The latest `limit` posts of `channel`, oldest first. */
  channelPosts?(query: { readonly channel: ChannelRef; readonly limit: number; readonly downloadMedia: boolean }): Promise<ChannelMessage[]>;
  /** The channel directory, by view (with countries) or by text, a page at a time. */
  searchChannels?(query: ChannelSearchArgs): Promise<ChannelListResult>;
}
