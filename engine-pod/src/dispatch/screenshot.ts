import { capability, type CommandHandlers } from './types.js';

export const screenshotHandlers: CommandHandlers<'session.screenshot'> = {
  // The page's picture as base64: a command's answer is JSON, in cluster mode a NATS message.
  'session.screenshot': async (engine, command, session) => {
    const png = await capability(engine, engine.screenshot, command, session).call(engine);
    return { mimetype: png.mimetype, data: png.data.toString('base64') };
  },
};
