import { z } from 'zod';
import { SessionName } from './ids.js';

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

/** The app kinds of the peer product; this build has `calls` (the others are refused with 422). */
export const APP_KINDS = ['calls', 'chatwoot', 'mcp'] as const;
export const BUILT_APP_KINDS: readonly (typeof APP_KINDS)[number][] = ['calls'];

const AppId = z
  .string()
  .regex(/^[A-Za-z0-9_.:-]{1,128}$/, { message: 'must be 1-128 letters, digits, _ . : or -' })
  .meta({ description: 'Unique app id; made up (`app_<ulid>`) when left out' });
const SessionOfApp = SessionName.meta({ description: 'The session the app belongs to' });

/**
 * `POST /api/apps` and `PUT /api/apps/{id}`: one app of a session, as the peer product's clients
 * send it. A `calls` app's config is checked as spec 2.3 says; the kinds this build does not have
 * are taken as any object, so that the answer can be the 422 that names the kind.
 */
export const AppRequest = z
  .discriminatedUnion('app', [
    z.object({ app: z.literal('calls'), config: CallsAppConfig.default({ dm: { reject: true }, group: { reject: true } }) }),
    z.object({ app: z.enum(['chatwoot', 'mcp']), config: z.looseObject({}).default({}) }),
  ])
  .and(z.object({ id: AppId.optional(), session: SessionOfApp, enabled: z.boolean().default(true) }))
  .meta({ id: 'AppRequest' });
export type AppRequest = z.infer<typeof AppRequest>;

/** An app as `/api/apps` answers it: the session's app, with its session named. */
export const AppRecord = AppConfig.extend({ session: z.string() }).meta({ id: 'AppRecord' });
export type AppRecord = z.infer<typeof AppRecord>;

export const AppsListQuery = z.object({ session: SessionOfApp });
export const AppIdParams = z.object({ id: AppId });
