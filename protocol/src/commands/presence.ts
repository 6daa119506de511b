import { PresenceChatArgs, SessionPresenceRequest } from '../presence.js';
import { command } from './command.js';

/** Engine commands of `/api/{session}/presence...`. */
export const presenceCommands = [
  command('presence.set', SessionPresenceRequest),
  command('presence.list'),
  command('presence.get', PresenceChatArgs),
  command('presence.subscribe', PresenceChatArgs),
] as const;
