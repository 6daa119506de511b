import { z } from 'zod';
import { ChatId } from './ids.js';

/** `POST /api/{session}/calls/reject`: declines a call that is ringing (its `call.received`). */
export const RejectCallRequest = z
  .object({
    from: ChatId.meta({ description: 'Who calls: `from` of the call’s `call.received`', examples: ['11111111111@c.us'] }),
    id: z
      .string()
      .regex(/^[0-9A-Za-z_-]{1,128}$/, { message: 'must be 1-128 letters, digits, "_" or "-"' })
      .meta({ description: 'The call id: `id` of its `call.received`', examples: ['ABCDEFGABCDEFGABCDEFGABCDEFG'] }),
  })
  .meta({ id: 'RejectCallRequest' });
export type RejectCallRequest = z.infer<typeof RejectCallRequest>;
