import {
  ApiKeyDTO,
  ApiKeyPathParams,
  ApiKeySelfDTO,
  ApiKeyRequest,
  ApiKeyUpdateRequest,
  ErrorBody,
  ScopedApiKeyRequest,
} from '@switchboard/protocol';
import type { FastifyInstance } from 'fastify';
import { ADMIN_ONLY, ANY_KEY } from '../auth/access.js';
import type { ApiKeys, ScopedKind } from '../auth/api-keys.js';
import { selfOf } from '../auth/permissions.js';
import type { Incarnations } from '../auth/principal.js';
import { typed } from './context.js';
import { commonErrors, NoBody } from './responses.js';

const tags = ['API keys'];

/**
 * Spec 4.2: API keys, for admin keys only. The secret (`key`) is in the answer that creates a
 * key and nowhere else: only its hash is stored.
 */
export async function keyRoutes(app: FastifyInstance, { keys, incarnations }: { keys: ApiKeys; incarnations: Incarnations }): Promise<void> {
  const r = typed(app);

  r.get('/api/keys/me', {
    config: ANY_KEY,
    schema: {
      tags,
      summary: 'The calling key (without its secret) and what it may do',
      description:
        'Any API key may ask about itself. `permissions` is worked out by the access rules every route is judged by, so a client offers only what the key may do. Our addition.',
      response: { 200: ApiKeySelfDTO, ...commonErrors },
    },
    handler: async (request) => selfOf(request.principal!, incarnations),
  });

  r.post('/api/keys', {
    config: ADMIN_ONLY,
    schema: {
      tags,
      summary: 'Create an API key; its secret is in this answer only',
      body: ApiKeyRequest,
      response: { 201: ApiKeyDTO, ...commonErrors },
    },
    handler: async (request, reply) => reply.code(201).send(await keys.create(request.body)),
  });

  r.get('/api/keys', {
    config: ADMIN_ONLY,
    schema: {
      tags,
      summary: 'List API keys (without their secrets)',
      response: { 200: ApiKeyDTO.array(), ...commonErrors },
    },
    handler: async () => keys.list(),
  });

  const scoped: Record<ScopedKind, string> = {
    media: 'Create or get the media-download-only key of a session',
    control: 'Create or get the control-only key of a session',
  };
  for (const [kind, summary] of Object.entries(scoped) as [ScopedKind, string][]) {
    r.post(`/api/keys/${kind}`, {
      config: ADMIN_ONLY,
      schema: {
        tags,
        summary,
        description:
          'A session has one key of each kind. When it has none, one is made and answered with its secret; ' +
          'otherwise the existing one is answered without it (it cannot be shown again: delete it and ask again for a new one).',
        body: ScopedApiKeyRequest,
        response: { 201: ApiKeyDTO, ...commonErrors, 422: ErrorBody },
      },
      handler: async (request, reply) => reply.code(201).send(await keys.scoped(kind, request.body.session)),
    });
  }

  r.put('/api/keys/:id', {
    config: ADMIN_ONLY,
    schema: {
      tags,
      summary: 'Update an API key: the fields sent change, the others and the secret stay',
      params: ApiKeyPathParams,
      body: ApiKeyUpdateRequest,
      response: { 200: ApiKeyDTO, ...commonErrors, 409: ErrorBody, 422: ErrorBody },
    },
    handler: async (request) => keys.update(request.params.id, request.body),
  });

  r.delete('/api/keys/:id', {
    config: ADMIN_ONLY,
    schema: {
      tags,
      summary: 'Delete an API key',
      params: ApiKeyPathParams,
      response: { 200: NoBody, ...commonErrors },
    },
    handler: async (request, reply) => {
      await keys.delete(request.params.id);
      return reply.code(200).send();
    },
  });
}
