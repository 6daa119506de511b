import type { ApiKeyAction } from '@switchboard/protocol';
import { ApiError } from '../http/errors.js';
import { type Access, keyActionOf } from './access.js';
import { type Incarnations, isStale, type Principal } from './principal.js';

/** The scope an OAuth 2.0 bearer token needs to list sessions (spec part 5). */
export const READ_ITEMS = 'read:items';

/** A route's access, worked out once when the route is registered. */
export interface RouteRule {
  readonly access: Access;
  /** For `session` routes: the flag a general key with `actions` needs. */
  readonly keyAction: ApiKeyAction | null;
}

export function ruleFor(access: Access, method: string): RouteRule {
  return { access, keyAction: access.kind === 'session' ? keyActionOf(access, method) : null };
}

/**
 * Throws a 403 ApiError saying why, when the principal may not use the route for `session`
 * (the session the request names; ignored by routes that act on no session). The rules are the
 * table in access.ts. A key limited to a session that was deleted since is refused for a later
 * session of the same name as for any other session (`incarnations`).
 */
export function authorize(principal: Principal, rule: RouteRule, session: unknown, incarnations: Incarnations = () => undefined): void {
  if (principal.kind === 'admin') return;
  const { access } = rule;
  if (access.kind === 'admin') throw forbidden('managing API keys needs an admin key');
  if (access.kind === 'self') {
    if (principal.kind === 'oauth') throw forbidden('an OAuth 2.0 bearer token may only list sessions (GET /api/sessions)');
    return;
  }
  if (access.kind === 'sessions.list') {
    if (principal.kind === 'media') throw forbidden(`a media key may only download media of session '${principal.session}'`);
    if (principal.kind === 'oauth' && !principal.scopes.includes(READ_ITEMS)) {
      throw forbidden(`the bearer token lacks scope '${READ_ITEMS}', which listing sessions needs`);
    }
    return;
  }
  if (principal.kind === 'oauth') throw forbidden('an OAuth 2.0 bearer token may only list sessions (GET /api/sessions)');
  if (principal.session !== null && principal.session !== session) {
    const named = typeof session === 'string' ? '' : ', and this request names no session';
    throw forbidden(`this key is limited to session '${principal.session}'${named}`);
  }
  if (principal.session !== null && isStale(principal, principal.session, incarnations)) throw forbidden(staleKey(principal.session));
  switch (principal.kind) {
    case 'media':
      if (access.action !== 'media') throw forbidden(`a media key may only download media of session '${principal.session}'`);
      return;
    case 'control':
      if (access.action !== 'read' && access.action !== 'control') {
        throw forbidden(`a control key may only read and control session '${principal.session}'; this route needs '${access.action}'`);
      }
      return;
    case 'general':
      if (principal.actions !== null && principal.actions[rule.keyAction!] !== true) {
        throw forbidden(`this key's actions do not include '${rule.keyAction}', which this route needs`);
      }
  }
}

/** Why a key may not open `/ws` for `session` (a name or `*`), or null when it may. */
export function websocketRefusal(principal: Principal, session: string, incarnations: Incarnations = () => undefined): string | null {
  switch (principal.kind) {
    case 'admin':
      return null;
    case 'media':
    case 'control':
      return `a ${principal.kind} key cannot open /ws; use an admin or general key`;
    case 'oauth':
      return 'an OAuth 2.0 bearer token cannot open /ws; use an API key';
    case 'general':
      if (principal.session !== null && principal.session !== session) {
        return `this key is limited to session '${principal.session}': connect with session=${principal.session}`;
      }
      if (principal.session !== null && isStale(principal, principal.session, incarnations)) return staleKey(principal.session);
      if (principal.actions !== null && principal.actions.read !== true) return "this key's actions do not include 'read'";
      return null;
  }
}

function staleKey(session: string): string {
  return `this key was limited to an earlier session named '${session}', which was deleted`;
}

function forbidden(message: string): ApiError {
  return new ApiError(403, message);
}
