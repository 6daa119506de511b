import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { SessionBackend } from '../sessions/backend.js';

/** What every route plugin is given. */
export interface RouteDeps {
  readonly sessions: SessionBackend;
  /** Largest body of the routes that take base64 files (spec 4.5 media), in bytes. */
  readonly mediaBodyLimit?: number;
}

export type ZodApp = ReturnType<FastifyInstance['withTypeProvider']> & FastifyInstance;

export function typed(app: FastifyInstance) {
  return app.withTypeProvider<ZodTypeProvider>();
}
