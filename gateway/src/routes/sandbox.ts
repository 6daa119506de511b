import { SessionPathParams, SimulateRequest } from '@switchboard/protocol';
import type { FastifyInstance } from 'fastify';
import { sessionAccess } from '../auth/access.js';
import { z } from 'zod';
import type { RouteDeps } from './context.js';
import { typed } from './context.js';
import { sessionErrors } from './responses.js';

/** Our addition: drive a SANDBOX session from the other side (docs/sandbox.md). */
export async function sandboxRoutes(app: FastifyInstance, { sessions }: RouteDeps): Promise<void> {
  typed(app).post('/api/:session/sandbox/simulate', {
    config: sessionAccess('use'),
    schema: {
      tags: ['Sandbox'],
      summary: 'Play the other side of a SANDBOX session: scan its QR, send it a message',
      params: SessionPathParams,
      body: SimulateRequest,
      response: { 201: z.record(z.string(), z.unknown()), ...sessionErrors },
    },
    handler: async (request, reply) => {
      const result = await sessions.command(request.params.session, { op: 'sandbox.simulate', args: request.body });
      return reply.code(201).send(result as Record<string, unknown>);
    },
  });
}
