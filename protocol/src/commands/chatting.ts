import { z } from 'zod';
import { MessageTextRequest } from '../chatting.js';

/** Engine commands of spec 4.5 (chatting). The session travels beside the command, not in it. */
export const chattingCommands = [
  z.object({ op: z.literal('send.text'), args: MessageTextRequest.omit({ session: true }) }),
] as const;
