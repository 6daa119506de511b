import type { SessionConfig } from '@switchboard/protocol';
import { ApiError } from '../http/errors.js';

/**
 * Paced sending (issue 32) runs in local mode. In cluster mode the queue belongs with the
 * session's engine pod, which does not have it yet: a session config asking for it is refused
 * rather than kept, so that no client believes its sends are paced when they are not.
 */
export function refusePacedSending(config: SessionConfig | undefined): void {
  if (config?.sending === undefined) return;
  throw new ApiError(422, 'config.sending (paced sending) is not available in cluster mode in this build: it runs in local mode; leave it out here', {
    fields: ['body.config.sending'],
    mode: 'cluster',
  });
}
