import { z } from 'zod';
import { SessionName } from './ids.js';
import { when } from './openapi-rules.js';

/**
 * API keys (spec 4.2, part 5). Field names follow the reference document (`ApiKeyRequest`,
 * `ScopedApiKeyRequest`, `ApiKeyDTO`, `SessionActionsDTO`) so existing clients work unchanged.
 */

/** Key ids: `key_` followed by a lower-case ULID, like event ids. */
export const ApiKeyId = z
  .string()
  .regex(/^key_[0-9a-hjkmnp-tv-z]{26}$/, { message: 'must be "key_" followed by a lower-case ULID' })
  .meta({ examples: ['key_01jabcdefghjkmnpqrstvwxyz0'] });
export type ApiKeyId = z.infer<typeof ApiKeyId>;

/**
 * What a general key may do to a session. Absent (`null`) means everything; when given, a flag
 * that is missing or false is refused.
 */
export const ApiKeyActions = z
  .object({
    read: z.boolean().optional().meta({ description: 'Read session data: the session, its account, messages, chats, contacts, media' }),
    send: z.boolean().optional().meta({ description: 'Send messages and change account data (profile, contacts)' }),
    control: z.boolean().optional().meta({ description: 'Lifecycle and pairing: start, stop, restart, logout, QR, codes' }),
    setting: z.boolean().optional().meta({ description: 'Create a session or change its configuration' }),
    app: z.boolean().optional().meta({ description: 'Manage apps (no route needs it yet: apps are set with the session configuration)' }),
    delete: z.boolean().optional().meta({ description: 'Delete the session' }),
  })
  .meta({ id: 'SessionActionsDTO' });
export type ApiKeyActions = z.infer<typeof ApiKeyActions>;
export type ApiKeyAction = keyof ApiKeyActions;

/**
 * Why an admin key with these limits is refused, per field: an admin key may do everything, so a
 * limit on it would be silently ignored. Empty when the combination is allowed.
 */
export function adminKeyLimitIssues(key: {
  isAdmin: boolean;
  session: string | null;
  actions: ApiKeyActions | null;
}): { path: 'session' | 'actions'; message: string }[] {
  if (!key.isAdmin) return [];
  return [
    ...(key.session !== null ? [{ path: 'session' as const, message: 'an admin key cannot be limited to a session' }] : []),
    ...(key.actions !== null ? [{ path: 'actions' as const, message: 'an admin key cannot be limited to actions' }] : []),
  ];
}

/** adminKeyLimitIssues as JSON Schema, for the OpenAPI document. */
const ADMIN_KEY_RULE = {
  description: 'An admin key (`isAdmin: true`) may do everything: its `session` and `actions` must be null or left out',
  ...when('isAdmin', true, { properties: { session: { type: 'null' }, actions: { type: 'null' } } }),
};

/** `POST /api/keys`. */
export const ApiKeyRequest = z
  .object({
    isAdmin: z.boolean().default(false).meta({ description: 'May manage keys and use every session' }),
    session: SessionName.nullable().default(null).meta({ description: 'Limit the key to this session; null for all sessions' }),
    isActive: z.boolean().default(true).meta({ description: 'An inactive key is refused (401) until activated again' }),
    actions: ApiKeyActions.nullable().default(null),
  })
  .superRefine((request, context) => {
    for (const { path, message } of adminKeyLimitIssues(request)) context.addIssue({ code: 'custom', path: [path], message });
  })
  .meta({ id: 'ApiKeyRequest', ...ADMIN_KEY_RULE });
export type ApiKeyRequest = z.infer<typeof ApiKeyRequest>;

/**
 * `PUT /api/keys/{id}`: the fields of ApiKeyRequest, each changed only when sent. So a key is
 * widened only by an explicit value (`"session": null`, `"actions": null`), never by a field
 * left out. The admin rule applies to the key as it is after the change (checked on update).
 */
export const ApiKeyUpdateRequest = z
  .object({
    isAdmin: z.boolean().optional().meta({ description: 'May manage keys and use every session; unchanged when left out' }),
    session: SessionName.nullable().optional().meta({ description: 'Limit the key to this session; null for all sessions; unchanged when left out' }),
    isActive: z.boolean().optional().meta({ description: 'An inactive key is refused (401) until activated again; unchanged when left out' }),
    actions: ApiKeyActions.nullable().optional().meta({ description: 'What the key may do; null for everything; unchanged when left out' }),
  })
  .meta({ id: 'ApiKeyUpdateRequest' });
export type ApiKeyUpdateRequest = z.infer<typeof ApiKeyUpdateRequest>;

/** `POST /api/keys/media` and `POST /api/keys/control`: the one key of that kind for a session. */
export const ScopedApiKeyRequest = z.object({ session: SessionName }).meta({ id: 'ScopedApiKeyRequest' });
export type ScopedApiKeyRequest = z.infer<typeof ScopedApiKeyRequest>;

export const ApiKeyPathParams = z.object({ id: z.string().min(1).max(64) });

/**
 * The kinds of spec part 5: `general` (all sessions, or one), `media` (download one session's
 * media) and `control` (read and drive one session), plus `admin` (key management).
 */
export const ApiKeyKind = z.enum(['admin', 'general', 'media', 'control']);
export type ApiKeyKind = z.infer<typeof ApiKeyKind>;

export const ApiKeyDTO = z
  .object({
    id: z.string(),
    key: z.string().optional().meta({ description: 'The secret: present only in the answer that created it. Only its hash is stored.' }),
    isActive: z.boolean(),
    isAdmin: z.boolean(),
    session: z.string().nullable(),
    actions: ApiKeyActions.nullable(),
    kind: ApiKeyKind,
  })
  .meta({ id: 'ApiKeyDTO' });
export type ApiKeyDTO = z.infer<typeof ApiKeyDTO>;

/**
 * A key as the gateway stores it (SQLite row in local mode, KV value in cluster mode): the
 * secret's `sha512:<hex>` hash, never the secret.
 */
export const StoredApiKey = z.object({
  id: z.string(),
  hash: z.string().regex(/^sha512:[0-9a-f]{128}$/),
  kind: ApiKeyKind,
  session: z.string().nullable(),
  isActive: z.boolean(),
  actions: ApiKeyActions.nullable(),
  createdAt: z.number().int(),
  /**
   * Which creation of `session` the key was limited to (cluster: the resource's uid; local: the
   * session's creation time), so a later session of the same name is not open to it. Internal:
   * never answered. Absent on keys stored before it was kept, and on keys limited to a session
   * that did not exist when the key was made: those follow the name alone.
   */
  incarnation: z.string().optional(),
});
export type StoredApiKey = z.infer<typeof StoredApiKey>;

/**
 * What the calling key may do, worked out by the gateway's own access rules (docs/api.md): a
 * client such as the dashboard offers only these, rather than keep a copy of the rules.
 */
export const ApiKeyPermissions = z
  .object({
    sessions: z.boolean().meta({ description: 'List sessions (GET /api/sessions)' }),
    read: z.boolean().meta({ description: 'Read sessions and their account data: history, event log, dead webhook deliveries' }),
    send: z.boolean().meta({ description: 'Send messages, simulate a SANDBOX peer' }),
    control: z.boolean().meta({ description: 'Start, stop, restart, log out, pair (QR, code, passkey)' }),
    setting: z.boolean().meta({ description: 'Create and update sessions, replay dead webhook deliveries' }),
    delete: z.boolean().meta({ description: 'Delete sessions' }),
    events: z.boolean().meta({ description: 'Open /ws' }),
    keys: z.boolean().meta({ description: 'Manage API keys' }),
  })
  .meta({ id: 'ApiKeyPermissions' });
export type ApiKeyPermissions = z.infer<typeof ApiKeyPermissions>;

/** `GET /api/keys/me`: the calling key, without its secret, and what it may do. Our addition. */
export const ApiKeySelfDTO = ApiKeyDTO.omit({ key: true }).extend({ permissions: ApiKeyPermissions }).meta({ id: 'ApiKeySelfDTO' });
export type ApiKeySelfDTO = z.infer<typeof ApiKeySelfDTO>;
