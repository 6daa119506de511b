import type { V1ObjectMeta } from '@kubernetes/client-node';
import {
  ANNOTATIONS,
  MESSAGING_SESSION,
  MessagingSessionSpec,
  type MessagingSessionStatus,
  resourceNameFor,
  sessionNameProblem,
} from '@switchboard/protocol';

/**
 * A MessagingSession as the API server sends it: plain JSON (timestamps are strings), the spec
 * as the CRD's schema admitted it, with its defaults applied. The spec and status types are the
 * protocol's schemas, which the CRD is generated from; `specOf` checks a spec against them again
 * (a resource written by hand, or under an older CRD). Informer caches hold these objects: never
 * mutate them.
 */
export interface MessagingSession {
  apiVersion?: string;
  kind?: string;
  metadata: V1ObjectMeta & { name: string };
  spec: MessagingSessionSpec;
  status?: MessagingSessionStatus;
}

/** A MessagingSession read from the API server: it has its uid (what owner references name). */
export interface StoredMessagingSession extends MessagingSession {
  metadata: V1ObjectMeta & { name: string; uid: string };
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

/** The session's name: what engines, NATS subjects, events and the API use. */
export function sessionNameOf(resource: MessagingSession): string {
  const session: unknown = resource.spec?.session;
  return typeof session === 'string' && session ? session : resource.metadata.name;
}

/**
 * Why the resource's `spec.session` does not belong to it (another resource's session), or null.
 * Such a resource is no session: nothing is made, run or dropped for the session it names.
 */
export function sessionClaimProblem(resource: MessagingSession): string | null {
  const session: unknown = resource.spec?.session;
  return sessionNameProblem(resource.metadata.name, typeof session === 'string' ? session : undefined);
}

/** The spec, with the protocol's defaults; an error names the resource and the field. */
export function specOf(resource: MessagingSession): MessagingSessionSpec {
  const parsed = MessagingSessionSpec.safeParse(resource.spec ?? {});
  if (parsed.success) return parsed.data;
  const fields = parsed.error.issues.map((issue) => `spec.${issue.path.join('.')}: ${issue.message}`).join('; ');
  throw new InvalidSpecError(`MessagingSession ${resource.metadata.name}: ${fields}`);
}

export class InvalidSpecError extends Error {}

/** When the API last asked for a restart (the operator replaces the engine pod when it differs). */
export function restartedAtOf(resource: MessagingSession): string | undefined {
  return resource.metadata.annotations?.[ANNOTATIONS.restartedAt];
}

/** Whether the API asked for the account to be logged out before the resource goes. */
export function logoutOnDelete(resource: MessagingSession): boolean {
  return resource.metadata.annotations?.[ANNOTATIONS.logoutOnDelete] === 'true';
}

/**
 * A resource being deleted (its finalizer logging the account out): the operator winds it down,
 * and as far as the API tells it is gone.
 */
export function isDeleting(resource: MessagingSession): boolean {
  return Boolean(resource.metadata.deletionTimestamp);
}
