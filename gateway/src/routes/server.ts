import { EngineCatalogEntry, engineCatalogEntries } from '@switchboard/protocol';
import type { FastifyInstance } from 'fastify';
import { ADMIN_ONLY } from '../auth/access.js';
import { typed } from './context.js';
import { commonErrors } from './responses.js';

const tags = ['Server'];

/**
 * What this server can do, beside the interface's routes: the engines this build has and, for
 * each, its image, the operations it carries out (any other answers 422), the events it emits,
 * whether the calls app can decline calls on it and the session settings it honours. All of it
 * is protocol's engine catalog, the table the gateway's 422s and the CRD come from.
 */
export async function serverRoutes(app: FastifyInstance): Promise<void> {
  const r = typed(app);

  r.get('/api/server/engines', {
    config: ADMIN_ONLY,
    schema: {
      tags,
      summary: 'The engines this build has and what each can do',
      response: { 200: EngineCatalogEntry.array(), ...commonErrors },
    },
    handler: async () => engineCatalogEntries(),
  });
}
