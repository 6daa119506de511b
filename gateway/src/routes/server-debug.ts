import { Session } from 'node:inspector/promises';
import { getHeapSnapshot } from 'node:v8';
import { CpuProfileQuery } from '@switchboard/protocol';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ADMIN_ONLY } from '../auth/access.js';
import { typed } from './context.js';
import { commonErrors } from './responses.js';

const tags = ['Server'];

/**
 * The peer's debug routes for this process, admin only, and registered only when
 * SWITCHBOARD_DEBUG_ROUTES is true: a CPU profile costs the process while it runs, and a heap
 * snapshot pauses it and holds every string it has, secrets included. In cluster mode they
 * profile the replica that answers; engine pods run elsewhere.
 */
export async function serverDebugRoutes(app: FastifyInstance): Promise<void> {
  const r = typed(app);

  r.get('/api/server/debug/cpu', {
    config: ADMIN_ONLY,
    schema: {
      tags,
      summary: 'A CPU profile of this gateway process (.cpuprofile, for Chrome DevTools)',
      querystring: CpuProfileQuery,
      response: { 200: z.unknown().meta({ description: 'The V8 CPU profile (JSON)' }), ...commonErrors },
    },
    handler: async (request, reply) => {
      const session = new Session();
      session.connect();
      try {
        await session.post('Profiler.enable');
        await session.post('Profiler.start');
        await new Promise((resolve) => setTimeout(resolve, request.query.seconds * 1000));
        const { profile } = await session.post('Profiler.stop');
        return await reply
          .type('application/json')
          .header('content-disposition', `attachment; filename="switchboard-${Date.now()}.cpuprofile"`)
          .send(JSON.stringify(profile));
      } finally {
        session.disconnect();
      }
    },
  });

  r.get('/api/server/debug/heapsnapshot', {
    config: ADMIN_ONLY,
    schema: {
      tags,
      summary: 'A heap snapshot of this gateway process (.heapsnapshot, for Chrome DevTools)',
      response: { 200: z.unknown().meta({ description: 'The V8 heap snapshot (JSON, streamed)' }), ...commonErrors },
    },
    handler: async (_request, reply) =>
      reply
        .type('application/octet-stream')
        .header('content-disposition', `attachment; filename="switchboard-${Date.now()}.heapsnapshot"`)
        .send(getHeapSnapshot()),
  });
}
