import { resolveFile } from '../media/resolve-file.js';
import { capability, type CommandHandlers } from './types.js';

export const profileHandlers: CommandHandlers<
  'profile.get' | 'profile.setName' | 'profile.setStatus' | 'profile.setPicture' | 'profile.deletePicture'
> = {
  'profile.get': async (engine, command, session) => capability(engine, engine.profile, command, session).call(engine),
  'profile.setName': async (engine, command, session) => {
    await capability(engine, engine.setProfileName, command, session).call(engine, command.args.name);
    return { success: true };
  },
  'profile.setStatus': async (engine, command, session) => {
    await capability(engine, engine.setProfileStatus, command, session).call(engine, command.args.status);
    return { success: true };
  },
  'profile.setPicture': async (engine, command, session, downloads) => {
    const setPicture = capability(engine, engine.setProfilePicture, command, session);
    await setPicture.call(engine, await resolveFile(command.args.file, 'file', downloads));
    return { success: true };
  },
  'profile.deletePicture': async (engine, command, session) => {
    await capability(engine, engine.deleteProfilePicture, command, session).call(engine);
    return { success: true };
  },
};
