import { resolveFile } from '../media/resolve-file.js';
import { capability, type CommandHandlers } from './types.js';

const done = { success: true } as const;

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
  'channels.list': async (engine, command, session) => capability(engine, engine.channels, command, session).call(engine, command.args.role),
  'channels.create': async (engine, command, session, downloads) => {
    const create = capability(engine, engine.createChannel, command, session);
    const { picture, ...channel } = command.args;
    return create.call(engine, { ...channel, picture: picture ? await resolveFile(picture, 'picture', downloads) : null });
  },
  'channels.get': async (engine, command, session) => capability(engine, engine.channel, command, session).call(engine, command.args.channel),
  'channels.delete': async (engine, command, session) => {
    await capability(engine, engine.deleteChannel, command, session).call(engine, command.args.id);
    return done;
  },
  'channels.follow': async (engine, command, session) => {
    await capability(engine, engine.followChannel, command, session).call(engine, command.args.id);
    return done;
  },
  'channels.unfollow': async (engine, command, session) => {
    await capability(engine, engine.unfollowChannel, command, session).call(engine, command.args.id);
    return done;
  },
  'channels.mute': async (engine, command, session) => {
    await capability(engine, engine.muteChannel, command, session).call(engine, command.args.id);
    return done;
  },
  'channels.unmute': async (engine, command, session) => {
    await capability(engine, engine.unmuteChannel, command, session).call(engine, command.args.id);
    return done;
  },
  'channels.preview': async (engine, command, session) => capability(engine, engine.channelPosts, command, session).call(engine, command.args),
  'channels.search': async (engine, command, session) => capability(engine, engine.searchChannels, command, session).call(engine, command.args),
};
