import type { KubernetesObject } from '@kubernetes/client-node';
import {
  MESSAGING_SESSION,
  type MessagingSessionSpec,
  type MessagingSessionStatus,
  resourceNameFor,
  type SessionDTO,
  type SessionInfo,
  type SessionStatus,
} from '@switchboard/protocol';
import { apiConfigOf } from './webhook-secrets.js';

/** A MessagingSession as the API server stores it (spec defaults applied by the CRD schema). */
export interface MessagingSession extends KubernetesObject {
  spec: MessagingSessionSpec;
  status?: MessagingSessionStatus;
}

export const API_VERSION = `${MESSAGING_SESSION.group}/${MESSAGING_SESSION.version}`;

/** A new resource for session `name`: the real name goes in `spec.session` when Kubernetes cannot hold it. */
export function newMessagingSession(name: string, spec: Omit<MessagingSessionSpec, 'session'>): MessagingSession {
  const resourceName = resourceNameFor(name);
  return {
    apiVersion: API_VERSION,
    kind: MESSAGING_SESSION.kind,
    metadata: { name: resourceName },
    spec: resourceName === name ? spec : { session: name, ...spec },
  };
}

export function sessionNameOf(resource: MessagingSession): string {
  return resource.spec.session ?? resource.metadata?.name ?? '';
}

/** The order local mode lists sessions in: oldest first, then by name. */
export function byCreation(a: MessagingSession, b: MessagingSession): number {
  const at = (r: MessagingSession) => new Date(r.metadata?.creationTimestamp ?? 0).getTime();
  return at(a) - at(b) || sessionNameOf(a).localeCompare(sessionNameOf(b));
}

/** A resource being deleted (its finalizer logging the account out) is gone as far as the API tells. */
export function isTerminating(resource: MessagingSession): boolean {
  return Boolean(resource.metadata?.deletionTimestamp);
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
    presence: null,
    timestamps: { activity },
    ...(reason ? { reason } : {}),
  };
}
