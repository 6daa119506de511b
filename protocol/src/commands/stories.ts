import { DeleteStatusRequest, MediaStatusArgs, TextStatus } from '../stories.js';
import { command } from './command.js';

/** Engine commands of status updates (stories). A new status message id is `account.newMessageId`. */
export const storyCommands = [
  command('status.text', TextStatus),
  command('status.media', MediaStatusArgs),
  command('status.delete', DeleteStatusRequest),
] as const;
