import { AVAILABLE_ENGINES } from '@switchboard/engine-pod';
import { InvalidSpecError, type MessagingSessionObject, specOf } from '../messaging-session.js';
import type { Refusal } from './status.js';

/**
 * Why no engine pod can run this resource, or null. These are terminal: retrying cannot help
 * until someone changes the spec (which is a new watch event, so nothing needs a requeue). A
 * spec the CRD schema let through may still fail the protocol's schema (an `ftp:` webhook url,
 * say), and the CRD allows engines of the interface that this build does not have (GOWS).
 */
export function refusalOf(resource: MessagingSessionObject): Refusal | null {
  let engine: string;
  try {
    engine = specOf(resource).engine;
  } catch (error) {
    if (error instanceof InvalidSpecError) return { reason: 'InvalidSpec', message: error.message };
    throw error;
  }
  if ((AVAILABLE_ENGINES as readonly string[]).includes(engine)) return null;
  return {
    reason: 'EngineNotAvailable',
    message: `engine ${engine} is not in this build; available: ${AVAILABLE_ENGINES.join(', ')}`,
  };
}
