import type { ApiKeyPermissions, ApiKeySelfDTO } from '@switchboard/protocol';
import { ApiError } from '../http/errors.js';
import { ADMIN_ONLY, type Access, SESSIONS_LIST, sessionAccess } from './access.js';
import { authorize, ruleFor, websocketRefusal } from './authorize.js';
import { type Incarnations, type Principal, sessionLimit } from './principal.js';

/**
 * What `principal` may do, asked of the same rules every route is judged by (authorize.ts), one
 * representative operation each: a client reads this instead of keeping a copy of the table.
 */
export function permissionsOf(principal: Principal, incarnations: Incarnations): ApiKeyPermissions {
  const session = sessionLimit(principal) ?? '*';
  const may = ({ access }: { access: Access }, method: string): boolean => {
    try {
      authorize(principal, ruleFor(access, method), session, incarnations);
      return true;
    } catch {
      return false;
    }
  };
  return {
    sessions: may(SESSIONS_LIST, 'GET'),
    // A control key reads the session record but not its account data: `read` means both.
    read: may(sessionAccess('read'), 'GET') && may(sessionAccess('use'), 'GET'),
    send: may(sessionAccess('use'), 'POST'),
    control: may(sessionAccess('control'), 'POST'),
    setting: may(sessionAccess('manage'), 'PUT'),
    delete: may(sessionAccess('manage'), 'DELETE'),
    events: websocketRefusal(principal, session, incarnations) === null,
    keys: may(ADMIN_ONLY, 'GET'),
  };
}

/** GET /api/keys/me: the calling key as GET /api/keys lists it, with its permissions. */
export function selfOf(principal: Principal, incarnations: Incarnations): ApiKeySelfDTO {
  const permissions = permissionsOf(principal, incarnations);
  const base = { isActive: true, permissions };
  switch (principal.kind) {
    case 'admin':
      return { ...base, id: principal.id, kind: 'admin', isAdmin: true, session: null, actions: null };
    case 'general':
      return { ...base, id: principal.id, kind: 'general', isAdmin: false, session: principal.session, actions: principal.actions };
    case 'media':
    case 'control':
      return { ...base, id: principal.id, kind: principal.kind, isAdmin: false, session: principal.session, actions: null };
    case 'oauth':
      throw new ApiError(403, 'an OAuth 2.0 bearer token may only list sessions (GET /api/sessions)');
  }
}
