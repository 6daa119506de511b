import type { ApiKeyAction } from '@switchboard/protocol';

/**
 * What a route lets a key do. Every route under /api declares one in its route options
 * (`config: { access }`); registering a route under /api without one throws at start-up
 * (route-guard.ts), so a new route cannot be forgotten. Keys are judged against it
 * (spec 4.2, part 5; docs/api.md "Authentication and keys" has the same table):
 *
 * | caller                        | may use                                                       |
 * |-------------------------------|---------------------------------------------------------------|
 * | admin key                     | everything                                                    |
 * | general key, no session       | everything but key management (`admin`)                       |
 * | general key, limited to S     | `sessions.list` (filtered to S) and `session` routes of S     |
 * | general key with `actions`    | as above, and only `session` routes whose key action is true  |
 * | control key of session S      | `sessions.list` (filtered to S), `session` routes of S with   |
 * |                               | action `read` or `control`                                    |
 * | media key of session S        | `session` routes of S with action `media`                     |
 * | OAuth bearer, scope read:items| `sessions.list` only                                          |
 * | any API key                   | `self`: GET /api/keys/me, the key's own record                |
 *
 * The key action (the `actions` flags of a general key, names from the reference document) of
 * a `session` route: `read` -> read, `media` -> read, `control` -> control; `use` -> read for
 * GET, send otherwise; `manage` -> delete for DELETE, setting otherwise. A route whose method
 * says otherwise names its key action: `sessionAccess('use', 'query.session', 'send')`.
 */
export type SessionAction =
  /** Read the session itself: its record, its account. */
  | 'read'
  /** Drive its lifecycle and pairing: start, stop, restart, logout, QR, codes, passkeys. */
  | 'control'
  /** Change or remove its configuration: update, delete (and create under that name). */
  | 'manage'
  /** Use the account: send, read history, profile, contacts. */
  | 'use'
  /** Download the session's received media. */
  | 'media';

export type Access =
  /** Key management: admin keys only. */
  | { readonly kind: 'admin' }
  /** The calling key's own record and permissions: any API key (not an OAuth bearer). */
  | { readonly kind: 'self' }
  /** The session list: any key but media keys, and an OAuth 2.0 bearer with scope read:items. */
  | { readonly kind: 'sessions.list' }
  /** Acts on one session, named at the request field `from` (after validation and defaults). */
  | {
      readonly kind: 'session';
      readonly action: SessionAction;
      readonly from: SessionField;
      /** The `actions` flag a general key needs here, when the method does not tell it. */
      readonly keyAction?: ApiKeyAction;
    };

/** Where a route names its session. Session bodies of spec 2.1 call it `name`. */
export type SessionField = 'params.session' | 'body.session' | 'query.session' | 'body.name';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
  }
}

/** Shorthands for route options: `config: sessionAccess('use', 'body.session')`. */
export function sessionAccess(action: SessionAction, from: SessionField = 'params.session', keyAction?: ApiKeyAction): { access: Access } {
  return { access: { kind: 'session', action, from, ...(keyAction ? { keyAction } : {}) } };
}

export const ADMIN_ONLY: { access: Access } = { access: { kind: 'admin' } };
export const SESSIONS_LIST: { access: Access } = { access: { kind: 'sessions.list' } };
export const ANY_KEY: { access: Access } = { access: { kind: 'self' } };

/** The `actions` flag a general key needs for a `session` route (table above). */
export function keyActionOf(access: Extract<Access, { kind: 'session' }>, method: string): ApiKeyAction {
  if (access.keyAction) return access.keyAction;
  switch (access.action) {
    case 'read':
    case 'media':
      return 'read';
    case 'control':
      return 'control';
    case 'use':
      return method === 'GET' || method === 'HEAD' ? 'read' : 'send';
    case 'manage':
      return method === 'DELETE' ? 'delete' : 'setting';
  }
}
