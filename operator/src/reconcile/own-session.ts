import { sessionClaimProblem, sessionNameOf, type StoredMessagingSession } from '@switchboard/kube';

/**
 * The session this resource runs, or null when its `spec.session` is another resource's session
 * (`sessionClaimProblem`): then nothing of that session is read, forgotten or dropped on this
 * resource's behalf, neither its engine's report nor its stores nor its pairing.
 */
export function ownSessionOf(resource: StoredMessagingSession): string | null {
  return sessionClaimProblem(resource) ? null : sessionNameOf(resource);
}
