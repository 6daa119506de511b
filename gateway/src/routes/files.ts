import type { MediaStore } from '@switchboard/engine-pod';
import { MediaFileParams, mediaIdOf } from '@switchboard/protocol';
import { create as contentDisposition } from 'content-disposition';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { sessionAccess } from '../auth/access.js';
import { ApiError } from '../http/errors.js';
import { typed } from './context.js';
import { commonErrors } from './responses.js';

export interface FileRouteDeps {
  readonly media: MediaStore;
}

/** `GET /api/files/{session}/{fileId}`: where `media.url` of a message record points (docs/api.md "Media"). */
export async function fileRoutes(app: FastifyInstance, { media }: FileRouteDeps): Promise<void> {
  typed(app).get('/api/files/:session/:fileId', {
    config: sessionAccess('media'),
    schema: {
      tags: ['Media'],
      summary: 'Download a received (or sent) file, at the address its media.url gives',
      description: 'A media key of the session may download too. 404 once the file’s lifetime has passed.',
      params: MediaFileParams,
      response: {
        200: {
          description: 'The file, with its media type',
          content: { 'application/octet-stream': { schema: z.string().meta({ format: 'binary' }) } },
        },
        ...commonErrors,
      },
    },
    handler: async (request, reply) => {
      const { session, fileId } = request.params;
      const id = mediaIdOf(fileId);
      const found = await media.get(session, id);
      if (!found) {
        throw new ApiError(404, `session '${session}' has no file '${id}': it never existed or its lifetime has passed`, {
          session,
          fileId: id,
        });
      }
      const { meta, data } = found;
      const maxAge = Math.max(0, Math.floor((meta.expiresAt - Date.now()) / 1000));
      return (
        reply
          .type(meta.mimetype)
          // An unnamed file is named as the client asked for it: `<id>.<ext>` from media.url.
          .header('content-disposition', contentDisposition(meta.filename ?? fileId))
          // The bytes come from someone else's phone: never let a browser guess them into a page.
          .header('x-content-type-options', 'nosniff')
          .header('cache-control', `private, max-age=${maxAge}, immutable`)
          .send(data as unknown as string)
      );
    },
  });
}
