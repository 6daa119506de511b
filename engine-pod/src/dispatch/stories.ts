import { resolveFile } from '../media/resolve-file.js';
import { capability, type CommandHandlers } from './types.js';

export const storyHandlers: CommandHandlers<'status.text' | 'status.media' | 'status.delete'> = {
  'status.text': async (engine, command, session) => capability(engine, engine.sendTextStatus, command, session).call(engine, command.args),
  'status.media': async (engine, command, session, downloads) => {
    const send = capability(engine, engine.sendMediaStatus, command, session);
    const { file: source, ...status } = command.args;
    const file = await resolveFile(source, 'file', downloads);
    if (status.kind === 'image') return send.call(engine, { ...status, file });
    // `convert` was the gateway's to do (gateway/src/routes/stories.ts): the file comes converted.
    const { convert: _converted, ...rest } = status;
    return send.call(engine, { ...rest, file });
  },
  'status.delete': async (engine, command, session) => {
    await capability(engine, engine.deleteStatus, command, session).call(engine, command.args);
    return { success: true };
  },
};
