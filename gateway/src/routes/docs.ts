import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import type { Access } from '../auth/access.js';
import { READ_ITEMS } from '../auth/authorize.js';
import { eventWebhooks } from './event-webhooks.js';
import { withFrameworkErrors } from './responses.js';

/**
 * The OpenAPI document is generated from the routes' zod schemas (protocol/), so it cannot drift
 * from what the server validates. Swagger UI at /docs, the document at /docs/openapi.json.
 */
export async function registerDocs(app: FastifyInstance, version: string, options: { oauth: boolean } = { oauth: false }): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Switchboard',
        version,
        description:
          'HTTP gateway to messaging accounts. Every /api route takes the API key in the X-Api-Key header; ' +
          'errors share one body: {statusCode, error, message, details?}.',
      },
      components: {
        securitySchemes: {
          api_key: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
          ...(options.oauth ? { oauth2: OAUTH2_SCHEME } : {}),
        },
      },
      security: [{ api_key: [] }],
    },
    // Each /api operation states its security and, as `x-access`, what a key may do there
    // (gateway/src/auth/access.ts), so clients and the auth-matrix test read the rules from it.
    transform: (input) => {
      const output = jsonSchemaTransform({ ...input, schema: withFrameworkErrors(input.url, input.schema) });
      const access = input.route.config?.access;
      if (!access || (output.schema as { hide?: boolean }).hide) return output;
      return { ...output, schema: { ...output.schema, security: securityOf(access, options.oauth), 'x-access': access } };
    },
    transformObject: (input) => ({ ...jsonSchemaTransformObject(input), webhooks: eventWebhooks() }),
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/docs' });
  app.get('/docs/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}

/**
 * Access tokens (JWT) of the authorization server set by SWITCHBOARD_OAUTH_*; this server only
 * checks them, so the document names no token address (spec part 5 shows none either).
 */
const OAUTH2_SCHEME = {
  type: 'http',
  scheme: 'bearer',
  bearerFormat: 'JWT',
  description: `OAuth 2.0 access token; scope ${READ_ITEMS} lists sessions (GET /api/sessions), nothing else`,
} as const;

function securityOf(access: Access, oauth: boolean): Record<string, string[]>[] {
  const apiKey = { api_key: [] };
  return access.kind === 'sessions.list' && oauth ? [apiKey, { oauth2: [READ_ITEMS] }] : [apiKey];
}
