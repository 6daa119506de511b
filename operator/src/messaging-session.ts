import type { V1ObjectMeta } from '@kubernetes/client-node';
import {
  ANNOTATIONS,
  MESSAGING_SESSION,
  MessagingSessionSpec,
  type MessagingSessionStatus,
} from '@switchboard/protocol';

/**
 * A MessagingSession as the API server sends it: plain JSON (timestamps are strings), the spec
 * with the CRD's defaults applied. The informer cache holds these objects; never mutate them.
 */
export interface MessagingSessionObject {
  apiVersion?: string;
  kind?: string;
  metadata: V1ObjectMeta & { name: string; uid: string };
  spec: unknown;
  status?: MessagingSessionStatus;
}

export const API_VERSION = `${MESSAGING_SESSION.group}/${MESSAGING_SESSION.version}`;

/** The session's name: what engines, NATS subjects and events use. */
export function sessionNameOf(resource: MessagingSessionObject): string {
  const spec = resource.spec as { session?: unknown } | undefined;
  return typeof spec?.session === 'string' && spec.session ? spec.session : resource.metadata.name;
}

/** The spec, with the protocol's defaults; an error names the resource and the field. */
export function specOf(resource: MessagingSessionObject): MessagingSessionSpec {
  const parsed = MessagingSessionSpec.safeParse(resource.spec ?? {});
  if (parsed.success) return parsed.data;
  const fields = parsed.error.issues.map((issue) => `spec.${issue.path.join('.')}: ${issue.message}`).join('; ');
  throw new InvalidSpecError(`MessagingSession ${resource.metadata.name}: ${fields}`);
}

export class InvalidSpecError extends Error {}

export function restartedAtOf(resource: MessagingSessionObject): string | undefined {
  return resource.metadata.annotations?.[ANNOTATIONS.restartedAt];
}

export function logoutOnDelete(resource: MessagingSessionObject): boolean {
  return resource.metadata.annotations?.[ANNOTATIONS.logoutOnDelete] === 'true';
}

export function isDeleting(resource: MessagingSessionObject): boolean {
  return Boolean(resource.metadata.deletionTimestamp);
}
