import { HealthCheckResult, PingResponse } from '@switchboard/protocol';
import type { FastifyInstance } from 'fastify';
import { typed } from './context.js';

const tags = ['Server'];

/**
 * `GET /ping` (the process answers) and `GET /health` (what it needs works), without a key:
 * load balancers and Kubernetes probes send none. Neither tells anything a caller could use
 * against the server.
 */
export async function healthRoutes(app: FastifyInstance, { checks }: { checks: Readonly<Record<string, () => unknown>> }): Promise<void> {
  const r = typed(app);

  r.get('/ping', {
    schema: { tags, summary: 'The server answers', response: { 200: PingResponse } },
    handler: async () => ({ message: 'pong' as const }),
  });

  r.get('/health', {
    schema: {
      tags,
      summary: 'Whether what the server needs works: 200, or 503 naming each check that is down',
      response: { 200: HealthCheckResult, 503: HealthCheckResult },
    },
    handler: async (_request, reply) => {
      const result: HealthCheckResult = { status: 'ok', info: {}, error: {}, details: {} };
      for (const [name, check] of Object.entries(checks)) {
        try {
          await check();
          result.info[name] = result.details[name] = { status: 'up' };
        } catch (error) {
          result.status = 'error';
          result.error[name] = result.details[name] = { status: 'down', message: error instanceof Error ? error.message : String(error) };
        }
      }
      return reply.code(result.status === 'ok' ? 200 : 503).send(result);
    },
  });
}
