import { type MessagingSession, sessionNameOf } from '@switchboard/kube';
import type { SessionDTO, SessionInfo, SessionStatus } from '@switchboard/protocol';
import { apiConfigOf } from './webhook-secrets.js';

/** How the API shows a MessagingSession (the resource itself and its helpers are @switchboard/kube's). */

/** The order local mode lists sessions in: oldest first, then by name. */
export function byCreation(a: MessagingSession, b: MessagingSession): number {
  const at = (r: MessagingSession) => new Date(r.metadata?.creationTimestamp ?? 0).getTime();
  return at(a) - at(b) || sessionNameOf(a).localeCompare(sessionNameOf(b));
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
  };
}
