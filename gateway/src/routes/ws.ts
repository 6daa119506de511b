import { EventName, SessionName } from '@switchboard/protocol';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ApiKeyAuthenticator } from '../auth/authenticator.js';
import { websocketRefusal } from '../auth/authorize.js';
import type { WsHub } from '../ws/hub.js';

const oneOrMany = <T extends z.ZodType>(item: T) =>
  z.union([item, z.array(item)]).transform((v) => (Array.isArray(v) ? v : [v]) as z.infer<T>[]);

const WsQuery = z.object({
  session: z.union([SessionName, z.literal('*')]).default('*'),
  events: oneOrMany(z.union([EventName, z.literal('*')])).default(['*']),
  'x-api-key': z.string().optional(),
});

/**
 * Close codes: 1008 (policy violation) for a bad key or query, as clients of this interface
 * expect, and for a key that may not watch what was asked (access.ts: admin and general keys
 * only; a key limited to a session only for that session).
 */
export async function wsRoutes(
  app: FastifyInstance,
  { hub, auth }: { hub: WsHub; auth: ApiKeyAuthenticator },
): Promise<void> {
  app.get('/ws', { websocket: true, schema: { hide: true } }, (socket, request) => {
    try {
      const query = request.query as Record<string, unknown>;
      const principal = auth.authenticate(query['x-api-key'] as string | string[] | undefined, 'the x-api-key query parameter');
      const parsed = WsQuery.safeParse(query);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        socket.close(1008, `invalid ${issue?.path.join('.') ?? 'query'}: ${issue?.message ?? 'bad value'}`.slice(0, 120));
        return;
      }
      const refusal = websocketRefusal(principal, parsed.data.session);
      if (refusal) {
        socket.close(1008, refusal.slice(0, 120));
        return;
      }
      hub.add(socket, { session: parsed.data.session, events: parsed.data.events });
    } catch (error) {
      socket.close(1008, error instanceof Error ? error.message.slice(0, 120) : 'unauthorized');
    }
  });
}
