import { type MessagingSession, sessionNameOf } from '@switchboard/kube';
import type { SessionDTO, SessionInfo, SessionStatus } from '@switchboard/protocol';
import { apiConfigOf } from './webhook-secrets.js';

/** How the API shows a MessagingSession (the resource itself and its helpers are @switchboard/kube's). */

/** `String.prototype.localeCompare`'s order, made once rather than per comparison. */
const byName = new Intl.Collator().compare;

/**
 * The order local mode lists sessions in: oldest first, then by name. Each resource's time and
 * name are read once, not in every comparison: a list of a thousand sessions made about 20,000
 * date parses and collations per request that way, the most of its cost.
 */
export function inCreationOrder<T extends MessagingSession>(resources: readonly T[]): T[] {
  return resources
    .map((resource) => ({ resource, at: new Date(resource.metadata?.creationTimestamp ?? 0).getTime() || 0, name: sessionNameOf(resource) }))
    .sort((a, b) => a.at - b.at || byName(a.name, b.name))
    .map(({ resource }) => resource);
}

/**
 * The status the API answers. The operator writes `status.status` from the engine pod; until it
 * has caught up with a start, a session that should run but reports STOPPED (or nothing) is
 * STARTING, which is what local mode answers right after a start.
 */
export function effectiveStatus(resource: MessagingSession): SessionStatus {
  const reported = resource.status?.status;
  if (resource.spec.desiredState === 'Running' && (reported === undefined || reported === 'STOPPED')) return 'STARTING';
  return reported ?? 'STOPPED';
}

/** The session as answers show it: its config's secrets masked (docs/api.md). */
export function toSessionDTO(resource: MessagingSession, status: SessionStatus = effectiveStatus(resource)): SessionDTO {
  return { name: sessionNameOf(resource), status, engine: resource.spec.engine, config: apiConfigOf(resource.spec.config) };
}

export function toSessionInfo(resource: MessagingSession, expandApps: boolean, activity: number | null): SessionInfo {
  const dto = toSessionDTO(resource);
  // The operator writes the reason with FAILED; the status answered may be STARTING before it has caught up.
  const reason = dto.status === 'FAILED' ? resource.status?.reason : null;
  return {
    ...dto,
    me: resource.status?.me ?? null,
    ...(expandApps ? { apps: resource.spec.apps ?? [] } : {}),
    presence: {},
    timestamps: { activity },
    ...(reason ? { reason } : {}),
    // A null client is stored as none (a merge patch removes nulls).
    ...(resource.status?.versions ? { versions: { ...resource.status.versions, client: resource.status.versions.client ?? null } } : {}),
  };
}
