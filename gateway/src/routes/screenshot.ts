import { Base64File, ScreenshotQuery } from '@switchboard/protocol';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { sessionAccess } from '../auth/access.js';
import type { RouteDeps } from './context.js';
import { typed } from './context.js';
import { sessionErrors } from './responses.js';

/**
 * `GET /api/screenshot?session=`: a PNG of what a browser engine's page shows (the QR code while
 * it waits for a scan). Engines without a browser answer 422 from the engine catalog.
 *
 * Once the account is paired the page shows its chats, so this is using the account (`use`, the
 * key action `read`), not controlling the session: a control key is refused, and its MCP tool
 * list leaves it out. Pairing does not need it: `GET /api/{session}/auth/qr` gives the QR code
 * (the dashboard's pairing page reads that).
 */
export async function screenshotRoutes(app: FastifyInstance, { sessions }: RouteDeps): Promise<void> {
  typed(app).get('/api/screenshot', {
    config: sessionAccess('use', 'query.session'),
    schema: {
      tags: ['Sessions'],
      summary: "A screenshot of a browser engine's page (WEBJS)",
      description: 'A PNG, or {mimetype, data} (base64) with `Accept: application/json`. Engines without a browser answer 422.',
      querystring: ScreenshotQuery,
      response: {
        200: {
          description: 'The page',
          content: { 'image/png': { schema: z.string().meta({ format: 'binary' }) }, 'application/json': { schema: Base64File } },
        },
        ...sessionErrors,
      },
    },
    handler: async (request, reply) => {
      const shot = (await sessions.command(request.query.session, { op: 'session.screenshot' })) as z.infer<typeof Base64File>;
      const accept = request.headers.accept;
      if (accept !== undefined && accept.includes('application/json') && !accept.includes('image/png'))
        return reply.type('application/json').send(shot);
      // OpenAPI declares the PNG as a binary string; on the wire it is the buffer's bytes.
      return reply.type('image/png').send(Buffer.from(shot.data, 'base64') as unknown as string);
    },
  });
}
