import { InvalidSpecError, sessionClaimProblem, sessionNameOf, specOf, type StoredMessagingSession } from '@switchboard/kube';
import {
  AVAILABLE_ENGINES,
  CLIENT_VERSION_ENGINES,
  isBuiltEngine,
  type MessagingSessionSpec,
  resourceNameProblem,
  unsupportedSettings,
  unsupportedSettingsMessage,
} from '@switchboard/protocol';
import type { Refusal } from './status.js';

/**
 * Why no engine pod can run this resource, or null. These are terminal: retrying cannot help
 * until someone changes the spec (which is a new watch event, so nothing needs a requeue). A
 * spec the CRD schema let through may still fail the protocol's schema (an `ftp:` webhook url,
 * say), and a name or an engine the CRD refuses today (GOWS) may belong to a resource created
 * before it did.
 */
export function refusalOf(resource: StoredMessagingSession): Refusal | null {
  const { name } = resource.metadata;
  // First: a resource speaking for another session gets nothing of it, not even a look at its spec.
  const claim = sessionClaimProblem(resource);
  if (claim) return { reason: 'SessionNameMismatch', message: `MessagingSession ${name}: ${claim}` };
  const nameProblem = resourceNameProblem(name, sessionNameOf(resource) !== name);
  if (nameProblem) return { reason: 'InvalidSpec', message: `MessagingSession ${name}: ${nameProblem}` };
  // Before the spec is parsed: the CRD's enum has only this build's engines, but a resource
  // stored under an earlier CRD (or another build's) may still name one it lacks.
  const engine = (resource.spec as { engine?: unknown } | undefined)?.engine;
  if (typeof engine === 'string' && !isBuiltEngine(engine)) {
    return { reason: 'EngineNotAvailable', message: `engine ${engine} is not in this build; available: ${AVAILABLE_ENGINES.join(', ')}` };
  }
  let spec: MessagingSessionSpec;
  try {
    spec = specOf(resource);
  } catch (error) {
    if (error instanceof InvalidSpecError) return { reason: 'InvalidSpec', message: error.message };
    throw error;
  }
  // A setting the engine would ignore (a proxy on SANDBOX, say): the same refusal as the API's 422.
  const unsupported = unsupportedSettings(spec.engine, spec.config);
  if (unsupported.length > 0) {
    return { reason: 'InvalidSpec', message: `MessagingSession ${resource.metadata.name}: ${unsupportedSettingsMessage(spec.engine, unsupported)}` };
  }
  // A pinned client version only a socket engine presents: on SANDBOX or WEBJS it would be ignored.
  if (spec.engineVersion?.clientVersion !== undefined && !CLIENT_VERSION_ENGINES.includes(spec.engine)) {
    return {
      reason: 'InvalidSpec',
      message: `MessagingSession ${name}: spec.engineVersion.clientVersion: ${spec.engine} presents no client version; only ${CLIENT_VERSION_ENGINES.join(', ')} do`,
    };
  }
  return null;
}
