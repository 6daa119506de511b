import type { EngineOp } from '@switchboard/protocol';
import { accountHandlers } from './account.js';
import { chatsHandlers } from './chats.js';
import { channelHandlers } from './channels.js';
import { chattingHandlers } from './chatting.js';
import { groupHandlers } from './groups.js';
import { contactHandlers, labelHandlers } from './contacts.js';
import { pairingHandlers } from './pairing.js';
import { profileHandlers } from './profile.js';
import { sandboxHandlers } from './sandbox.js';
import { screenshotHandlers } from './screenshot.js';
import { storyHandlers } from './stories.js';
import type { CommandHandlers } from './types.js';

/**
 * One handler per engine command. `me` is answered by the host itself (it needs no live engine),
 * every other op is here: the type makes a new op in protocol/src/commands/ fail to compile
 * until it has a handler.
 */
export const COMMAND_HANDLERS: CommandHandlers<Exclude<EngineOp, 'me'>> = {
  ...pairingHandlers,
  ...accountHandlers,
  ...profileHandlers,
  ...chattingHandlers,
  ...groupHandlers,
  ...chatsHandlers,
  ...sandboxHandlers,
  ...contactHandlers,
  ...labelHandlers,
  ...channelHandlers,
  ...storyHandlers,
  ...screenshotHandlers,
};
