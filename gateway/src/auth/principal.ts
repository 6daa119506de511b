import type { ApiKeyActions, StoredApiKey } from '@switchboard/protocol';

/**
 * Who is calling, as the access rules (access.ts) judge it. Built once per stored key, not per
 * request: the key check hands out the same frozen object every time.
 */
export type Principal =
  | { readonly kind: 'admin'; readonly id: string }
  | {
      readonly kind: 'general';
      readonly id: string;
      /** The one session the key may use, or null for all. */
      readonly session: string | null;
      /** null: every action; else only the flags set to true. */
      readonly actions: ApiKeyActions | null;
      /** The creation of `session` the key was limited to (StoredApiKey.incarnation). */
      readonly incarnation?: string;
    }
  | { readonly kind: 'media' | 'control'; readonly id: string; readonly session: string; readonly incarnation?: string }
  /** An OAuth 2.0 bearer token: only ever lets a caller list sessions (scope `read:items`). */
  | { readonly kind: 'oauth'; readonly subject: string | null; readonly scopes: readonly string[] };

/** The configured admin key (SWITCHBOARD_API_KEY, or the generated one): admin in both modes. */
export const CONFIGURED_ADMIN: Principal = Object.freeze({ kind: 'admin', id: 'admin' });

export function principalOf(key: StoredApiKey): Principal {
  switch (key.kind) {
    case 'admin':
      return Object.freeze({ kind: 'admin', id: key.id });
    case 'general':
      return Object.freeze({ kind: 'general', id: key.id, session: key.session, actions: key.actions, ...incarnationOf(key) });
    case 'media':
    case 'control':
      return Object.freeze({ kind: key.kind, id: key.id, session: key.session ?? '', ...incarnationOf(key) });
  }
}

function incarnationOf(key: StoredApiKey): { incarnation?: string } {
  return key.session !== null && key.incarnation !== undefined ? { incarnation: key.incarnation } : {};
}

/**
 * The current incarnation of a session (cluster: its resource's uid; local: its creation time),
 * or undefined when this gateway knows of no session of that name.
 */
export type Incarnations = (session: string) => string | undefined;

/**
 * Whether a key limited to `session` was made for an earlier session of that name, one deleted
 * since. A key that has no incarnation (stored before it was kept) follows the name alone; a
 * session not known here is not judged (the route answers 404 for it).
 */
export function isStale(limited: { readonly incarnation?: string }, session: string, incarnations: Incarnations): boolean {
  if (limited.incarnation === undefined) return false;
  const current = incarnations(session);
  return current !== undefined && current !== limited.incarnation;
}

/** What a principal's own limits (per-key bounds) are counted by: the key's id; an OAuth bearer's subject. */
export function keyIdOf(principal: Principal): string {
  return principal.kind === 'oauth' ? `oauth:${principal.subject ?? ''}` : principal.id;
}

/** The session a principal is limited to, or null when it may see every session. */
export function sessionLimit(principal: Principal): string | null {
  return principal.kind === 'general' || principal.kind === 'media' || principal.kind === 'control' ? principal.session : null;
}
