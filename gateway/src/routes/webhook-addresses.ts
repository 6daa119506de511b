import { proxyServerUrl } from '@switchboard/engine-pod';
import { describeRefusal, type OutboundPolicy } from '@switchboard/kube';
import type { FieldIssue, SessionConfig } from '@switchboard/protocol';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../http/errors.js';

/**
 * A preHandler of the routes that set a session's config: a webhook url or a proxy server the
 * outbound address policy refuses before resolving it (an address, or a host name a rule names)
 * is a 400 naming the field and the rule, and nothing is changed. Names that resolve to a denied
 * address are refused when a delivery or the engine connects (`blocked_address`): what they
 * resolve to may change.
 */
export function webhookAddressCheck(policy: OutboundPolicy) {
  return async (request: FastifyRequest): Promise<void> => {
    const { config } = request.body as { config?: SessionConfig };
    const issues: FieldIssue[] = [];
    for (const [index, webhook] of (config?.webhooks ?? []).entries()) {
      const refusal = policy.refusalOfUrl(webhook.url);
      if (refusal) issues.push({ path: `body.config.webhooks[${index}].url`, reason: describeRefusal(refusal) });
    }
    const proxy = config?.proxy?.server;
    const proxyRefusal = proxy === undefined ? null : policy.refusalOfUrl(proxyServerUrl(proxy));
    if (proxyRefusal) issues.push({ path: 'body.config.proxy.server', reason: describeRefusal(proxyRefusal) });
    if (issues.length > 0) {
      throw new ApiError(400, `invalid request: ${issues.map((issue) => `${issue.path}: ${issue.reason}`).join('; ')}`, issues);
    }
  };
}
