import { z } from 'zod';
import { rawData, unixSeconds } from './common.js';

/** `call.received`, `call.accepted` and `call.rejected` share one shape. */
export const CallPayload = z
  .object({
    id: z.string().meta({ description: 'Call id', examples: ['ABCDEFGABCDEFGABCDEFGABCDEFG'] }),
    from: z.string().meta({ description: 'Caller id', examples: ['11111111111@c.us'] }),
    timestamp: unixSeconds(),
    isVideo: z.boolean(),
    isGroup: z.boolean(),
    _data: rawData(),
  })
  .meta({ id: 'CallPayload' });
export type CallPayload = z.infer<typeof CallPayload>;
