import { resolveFile } from '../media/resolve-file.js';
import { capability, type CommandHandlers } from './types.js';

const PROFILE = 'changing the profile';

export const profileHandlers: CommandHandlers<
  'profile.get' | 'profile.setName' | 'profile.setStatus' | 'profile.setPicture' | 'profile.deletePicture'
> = {
  'profile.get': async (engine, _command, session) => capability(engine, engine.profile, 'reading the profile', session).call(engine),
  'profile.setName': async (engine, command, session) => {
    await capability(engine, engine.setProfileName, PROFILE, session).call(engine, command.args.name);
    return { success: true };
  },
  'profile.setStatus': async (engine, command, session) => {
    await capability(engine, engine.setProfileStatus, PROFILE, session).call(engine, command.args.status);
    return { success: true };
  },
  'profile.setPicture': async (engine, command, session, downloads) => {
    const setPicture = capability(engine, engine.setProfilePicture, PROFILE, session);
    await setPicture.call(engine, await resolveFile(command.args.file, 'file', downloads));
    return { success: true };
  },
  'profile.deletePicture': async (engine, _command, session) => {
    await capability(engine, engine.deleteProfilePicture, PROFILE, session).call(engine);
    return { success: true };
  },
};
