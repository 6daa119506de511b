import { resolveFile } from '../media/resolve-file.js';
import { acknowledge, capability, forward, type CommandHandlers } from './types.js';

export const channelHandlers: CommandHandlers<
  | 'channels.list'
  | 'channels.create'
  | 'channels.get'
  | 'channels.delete'
  | 'channels.follow'
  | 'channels.unfollow'
  | 'channels.mute'
  | 'channels.unmute'
  | 'channels.preview'
  | 'channels.search'
> = {
  'channels.list': forward('channels', (command) => command.args.role),
  'channels.create': async (engine, command, session, downloads) => {
    const create = capability(engine, engine.createChannel, command, session);
    const { picture, ...channel } = command.args;
    return create.call(engine, { ...channel, picture: picture ? await resolveFile(picture, 'picture', downloads) : null });
  },
  'channels.get': forward('channel', (command) => command.args.channel),
  'channels.delete': acknowledge('deleteChannel', (command) => command.args.id),
  'channels.follow': acknowledge('followChannel', (command) => command.args.id),
  'channels.unfollow': acknowledge('unfollowChannel', (command) => command.args.id),
  'channels.mute': acknowledge('muteChannel', (command) => command.args.id),
  'channels.unmute': acknowledge('unmuteChannel', (command) => command.args.id),
  'channels.preview': forward('channelPosts', (command) => command.args),
  'channels.search': forward('searchChannels', (command) => command.args),
};
