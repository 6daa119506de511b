import { sessionNameOf } from '@switchboard/kube';
import { webhookSecretName } from '@switchboard/protocol';
import type { Logger } from 'pino';
import type { SessionCache } from './session-cache.js';
import type { SessionSecrets } from './session-secrets.js';
import { hasPlainSecrets, secretNamesOf } from './webhook-secrets.js';

/**
 * Keeps the Secrets read for deliveries in step with the resources: after any change of a
 * MessagingSession (its spec names other Secrets, or a replica rewrote its Secret, which changes
 * the version annotation) the next delivery reads them again. Also warns, once per generation,
 * of a resource that keeps webhook secrets (or the proxy's password) in plain text in its spec (applied with `kubectl`
 * before Secrets, or by hand): it still works, and the next config write through the API moves
 * them into the session's Secret. Returns the unsubscribe.
 */
export function followWebhookSecrets(cache: SessionCache, secrets: SessionSecrets, log: Logger): () => void {
  const warned = new Map<string, number>();
  return cache.subscribe((resourceName) => {
    secrets.forget(webhookSecretName(resourceName));
    const resource = cache.lookup(resourceName);
    if (!resource) {
      warned.delete(resourceName);
      return;
    }
    for (const name of secretNamesOf(resource.spec.config)) secrets.forget(name);
    const generation = resource.metadata?.generation ?? 0;
    if (!hasPlainSecrets(resource.spec.config)) warned.delete(resourceName);
    else if (warned.get(resourceName) !== generation) {
      warned.set(resourceName, generation);
      log.warn(
        { session: sessionNameOf(resource), resource: resourceName },
        'MessagingSession keeps secrets in plain text (hmac.key, customHeaders[].value, a url with credentials or proxy.password): anyone who can read it reads them; use keyFrom / valueFrom / urlFrom / passwordFrom.secretKeyRef (docs/operations.md, "Webhook secrets")',
      );
    }
  });
}
