import {
  AVAILABLE_ENGINES,
  type MessagingSessionSpec,
  resourceNameProblem,
  unsupportedSettings,
  unsupportedSettingsMessage,
} from '@switchboard/protocol';
import { InvalidSpecError, type MessagingSessionObject, sessionNameOf, specOf } from '../messaging-session.js';
import type { Refusal } from './status.js';

/**
 * Why no engine pod can run this resource, or null. These are terminal: retrying cannot help
 * until someone changes the spec (which is a new watch event, so nothing needs a requeue). A
 * spec the CRD schema let through may still fail the protocol's schema (an `ftp:` webhook url,
 * say), and the CRD allows engines of the interface that this build does not have (GOWS). A
 * name the CRD refuses today may belong to a resource created before it did.
 */
export function refusalOf(resource: MessagingSessionObject): Refusal | null {
  const { name } = resource.metadata;
  const nameProblem = resourceNameProblem(name, sessionNameOf(resource) !== name);
  if (nameProblem) return { reason: 'InvalidSpec', message: `MessagingSession ${name}: ${nameProblem}` };
  let spec: MessagingSessionSpec;
  try {
    spec = specOf(resource);
  } catch (error) {
    if (error instanceof InvalidSpecError) return { reason: 'InvalidSpec', message: error.message };
    throw error;
  }
  if (!AVAILABLE_ENGINES.includes(spec.engine)) {
    return {
      reason: 'EngineNotAvailable',
      message: `engine ${spec.engine} is not in this build; available: ${AVAILABLE_ENGINES.join(', ')}`,
    };
  }
  // A setting the engine would ignore (a proxy on SANDBOX, say): the same refusal as the API's 422.
  const unsupported = unsupportedSettings(spec.engine, spec.config);
  if (unsupported.length > 0) {
    return { reason: 'InvalidSpec', message: `MessagingSession ${resource.metadata.name}: ${unsupportedSettingsMessage(spec.engine, unsupported)}` };
  }
  return null;
}
