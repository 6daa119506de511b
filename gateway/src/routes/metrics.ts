import type { FastifyInstance } from 'fastify';
import type { ApiKeyAuthenticator } from '../auth/authenticator.js';
import { ApiError } from '../http/errors.js';
import type { GatewayMetrics } from '../metrics/gateway-metrics.js';

export interface MetricsRouteDeps {
  readonly metrics: GatewayMetrics;
  readonly auth: ApiKeyAuthenticator;
  /** SWITCHBOARD_METRICS_PUBLIC=true: no key needed (a scraper inside a trusted network). */
  readonly public: boolean;
}

/**
 * `GET /metrics` in the Prometheus text format, outside /api. Series carry session names, so by
 * default only the admin key may read them: in the X-Api-Key header, or as a bearer token, which
 * is what a Prometheus scrape config's `authorization` sends.
 */
export async function metricsRoutes(app: FastifyInstance, deps: MetricsRouteDeps): Promise<void> {
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (!deps.public) {
      const bearer = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1];
      const presented = request.headers['x-api-key'] ?? bearer;
      const principal = deps.auth.authenticate(presented, 'the X-Api-Key header or as a bearer token');
      if (principal.kind !== 'admin') throw new ApiError(403, 'metrics need the admin key');
    }
    return reply.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  });
}
