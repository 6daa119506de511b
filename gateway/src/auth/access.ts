/**
 * What a route lets a key do. Every route under /api declares one in its route options
 * (`config: { access }`); the key check refuses a route that declares none, so a new route
 * cannot be forgotten. Scoped keys (spec 4.2, part 5) are judged against it:
 *
 * | key kind                     | may use                                                        |
 * |------------------------------|----------------------------------------------------------------|
 * | admin                        | everything                                                     |
 * | general, no session          | everything but key management (`admin`)                        |
 * | general, limited to session S| `sessions.list` (filtered to S) and `session` routes of S      |
 * | control of session S         | `sessions.list` (filtered to S), `session` routes of S with    |
 * |                              | action `read` or `control`                                     |
 * | media of session S           | `session` routes of S with action `media`                      |
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
  /** The session list: any key but media keys, and an OAuth 2.0 bearer with scope read:items. */
  | { readonly kind: 'sessions.list' }
  /** Acts on one session, named at the request field `from` (after validation and defaults). */
  | { readonly kind: 'session'; readonly action: SessionAction; readonly from: SessionField };

/** Where a route names its session. Session bodies of spec 2.1 call it `name`. */
export type SessionField = 'params.session' | 'body.session' | 'query.session' | 'body.name';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
  }
}

/** Shorthands for route options: `config: sessionAccess('use', 'body.session')`. */
export function sessionAccess(action: SessionAction, from: SessionField = 'params.session'): { access: Access } {
  return { access: { kind: 'session', action, from } };
}

export const ADMIN_ONLY: { access: Access } = { access: { kind: 'admin' } };
export const SESSIONS_LIST: { access: Access } = { access: { kind: 'sessions.list' } };
