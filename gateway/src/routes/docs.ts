import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';

/**
 * The OpenAPI document is generated from the routes' zod schemas (protocol/), so it cannot drift
 * from what the server validates. Swagger UI at /docs, the document at /docs/openapi.json.
 */
export async function registerDocs(app: FastifyInstance, version: string): Promise<void> {
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
        securitySchemes: { api_key: { type: 'apiKey', in: 'header', name: 'X-Api-Key' } },
      },
      security: [{ api_key: [] }],
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/docs' });
  app.get('/docs/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
