import { z } from 'zod';
import { AppConfig } from './apps.js';
import { EngineSettings } from './engine-settings.js';
import { EngineVersions } from './engine-versions.js';
import { EngineName } from './engines.js';
import { SessionName } from './ids.js';
import { SessionPresence } from './presence.js';
import { SendingConfig } from './sending.js';
import { SessionStatus } from './status.js';
import { WebhookConfig } from './webhook.js';

export const Metadata = z
  .record(z.string().max(256), z.string().max(4096))
  .meta({ description: 'Echoed back in every event envelope of the session', examples: [{ 'user.id': '123' }] });

const CONFIG_MEMBERS = ['metadata', 'debug', 'webhooks', 'proxy', 'ignore', 'client', 'noweb', 'clientVersion', 'sending'];

/**
 * Spec 2.1 `config`, plus the peer product's engine settings (engine-settings.ts). A member this
 * build does not know (the peer's `webjs`, `gows`) is refused, naming it, rather than dropped: a
 * client must not believe a setting applies when it does not.
 */
export const SessionConfig = z
  .strictObject(
    {
      metadata: Metadata.optional(),
      debug: z.boolean().optional().meta({ description: 'Kept and read back; it changes nothing in this build' }),
      webhooks: z.array(WebhookConfig).max(20).optional(),
      ...EngineSettings.shape,
      sending: SendingConfig.optional(),
    },
    {
      error: (issue) =>
        issue.code === 'unrecognized_keys'
          ? `unknown member ${issue.keys.map((k) => `"${k}"`).join(', ')}: config takes ${CONFIG_MEMBERS.join(', ')}`
          : undefined,
    },
  )
  .meta({ id: 'SessionConfig' });
export type SessionConfig = z.infer<typeof SessionConfig>;

const sessionFields = {
  config: SessionConfig.optional(),
  apps: z.array(AppConfig).max(10).nullish(),
  engine: EngineName.optional().meta({
    description: 'Engine for the session; default from SWITCHBOARD_DEFAULT_ENGINE',
  }),
};

export const SessionCreateRequest = z
  .object({
    name: SessionName.default('default'),
    start: z.boolean().default(true).meta({ description: 'Start the session after creating it' }),
    ...sessionFields,
  })
  .meta({ id: 'SessionCreateRequest' });
export type SessionCreateRequest = z.infer<typeof SessionCreateRequest>;

/**
 * `PUT /api/sessions/{session}`: the create shape with `name` optional (the path names it).
 * `start` has no default here: leaving it out keeps the session as it is, running or stopped.
 */
export const SessionUpdateRequest = z
  .object({
    name: SessionName.optional(),
    start: z
      .boolean()
      .optional()
      .meta({ description: 'true starts the session after the update (a running one keeps running); false or left out changes nothing' }),
    ...sessionFields,
  })
  .meta({ id: 'SessionUpdateRequest' });
export type SessionUpdateRequest = z.infer<typeof SessionUpdateRequest>;

export const SessionStartDeprecatedRequest = z
  .object({ name: SessionName.default('default'), ...sessionFields })
  .meta({ id: 'SessionStartDeprecatedRequest' });
export type SessionStartDeprecatedRequest = z.infer<typeof SessionStartDeprecatedRequest>;

export const SessionStopDeprecatedRequest = z
  .object({
    name: SessionName.default('default'),
    logout: z.boolean().default(true).meta({ description: 'Also log out (spec 4.3: by default it does)' }),
  })
  .meta({ id: 'SessionStopDeprecatedRequest' });
export type SessionStopDeprecatedRequest = z.infer<typeof SessionStopDeprecatedRequest>;

export const SessionLogoutDeprecatedRequest = z.object({ name: SessionName.default('default') }).meta({ id: 'SessionLogoutDeprecatedRequest' });

export const MeInfo = z
  .object({
    id: z.string().meta({ examples: ['15550000000@c.us'] }),
    pushName: z.string(),
  })
  .meta({ id: 'MeInfo' });
export type MeInfo = z.infer<typeof MeInfo>;

export const SessionDTO = z
  .object({
    name: z.string(),
    status: SessionStatus,
    engine: EngineName,
    config: SessionConfig,
  })
  .meta({ id: 'SessionDTO' });
export type SessionDTO = z.infer<typeof SessionDTO>;

export const SessionInfo = SessionDTO.extend({
  me: MeInfo.nullable(),
  apps: z.array(AppConfig).optional().meta({ description: 'Present with expand=apps' }),
  presence: SessionPresence,
  timestamps: z.object({ activity: z.number().nullable() }),
  reason: z.string().optional().meta({
    description: 'Only while FAILED: why the session failed (the `reason` of its last session.status event). Not in the peer API.',
  }),
  versions: EngineVersions.optional().meta({
    description:
      'What the session runs (engine image, library and version, the client version it presents), once its engine has started and said so. Not in the peer API.',
  }),
}).meta({ id: 'SessionInfo' });
export type SessionInfo = z.infer<typeof SessionInfo>;

const expandValues = z.enum(['apps']);
/** `expand` may be repeated (`expand=apps&expand=...`) or given once. */
export const SessionExpandQuery = z
  .union([expandValues, z.array(expandValues)])
  .optional()
  .transform((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]));

/** Query booleans arrive as strings; only the two spellings a user means are accepted. */
export const QueryBoolean = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

export const SessionListQuery = z.object({
  all: QueryBoolean.optional().meta({ description: 'Include STOPPED sessions' }),
  expand: SessionExpandQuery,
});

export const SessionGetQuery = z.object({ expand: SessionExpandQuery });

export const SessionPathParams = z.object({ session: SessionName });
