import { z } from 'zod';

const CallsChannelConfig = z
  .object({
    reject: z.boolean().default(true).meta({ description: 'Reject incoming calls in this kind of chat' }),
    message: z.string().max(4096).optional().meta({ description: 'Reply sent after the call is rejected' }),
  })
  .meta({ id: 'CallsAppChannelConfig' });

export const CallsAppConfig = z
  .object({
    dm: CallsChannelConfig.default({ reject: true }),
    group: CallsChannelConfig.default({ reject: true }),
  })
  .meta({ id: 'CallsAppConfig' });
export type CallsAppConfig = z.infer<typeof CallsAppConfig>;

/** Spec 2.3: per-session apps. `calls` is the one app the spec shows. */
export const AppConfig = z
  .object({
    app: z.literal('calls'),
    id: z.string().min(1).max(128).optional(),
    session: z.string().max(63).optional().meta({ description: 'May be empty; the owning session is implied' }),
    enabled: z.boolean().default(true),
    config: CallsAppConfig.default({ dm: { reject: true }, group: { reject: true } }),
  })
  .meta({ id: 'App' });
export type AppConfig = z.infer<typeof AppConfig>;
