import { z } from 'zod';
import { ChannelListQuery, ChannelRef, ChannelSearchArgs, CreateChannelRequest, NewsletterId } from '../channels.js';
import { command } from './command.js';

const ChannelArgs = z.object({ id: NewsletterId });

/** Engine commands of channels (newsletters): the account's own, and the directory's. */
export const channelCommands = [
  command('channels.list', ChannelListQuery),
  command('channels.create', CreateChannelRequest),
  command('channels.get', z.object({ channel: ChannelRef })),
  command('channels.delete', ChannelArgs),
  command('channels.follow', ChannelArgs),
  command('channels.unfollow', ChannelArgs),
  command('channels.mute', ChannelArgs),
  command('channels.unmute', ChannelArgs),
  // Plain values, not the query's strings: the command is checked again where it is carried out.
  command('channels.preview', z.object({ channel: ChannelRef, downloadMedia: z.boolean(), limit: z.number().int().min(1).max(100) })),
  command('channels.search', ChannelSearchArgs),
] as const;
