import { command } from './command.js';

/** A picture of what a browser engine's page shows (`GET /api/screenshot`): browser engines only. */
export const screenshotCommands = [command('session.screenshot')] as const;
