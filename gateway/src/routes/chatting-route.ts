import type { EngineCommand } from '@switchboard/protocol';
import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import { sessionAccess } from '../auth/access.js';
import type { SessionBackend } from '../sessions/backend.js';
import { typed } from './context.js';
import { sessionErrors } from './responses.js';

/** Bodies that carry a file as base64 (spec 4.5 media) may be this large, unless configured otherwise. */
export const DEFAULT_MEDIA_BODY_LIMIT = 16 * 1024 * 1024;

type SessionBody = z.ZodType<{ session: string }>;

/** One spec 4.5 operation: a body naming its session, one engine command, one success status. */
export interface ChattingOperation<Body extends SessionBody> {
  readonly method: 'POST' | 'PUT';
  readonly url: string;
  readonly summary: string;
  readonly description?: string;
  readonly deprecated?: boolean;
  readonly body: Body;
  readonly status: 200 | 201;
  readonly response: z.ZodType;
  /** Larger than the server's default, for bodies with base64 files. */
  readonly bodyLimit?: number;
  readonly command: (args: Omit<z.output<Body>, 'session'>) => EngineCommand;
  /** What the client gets from the command's result; the result itself when absent. */
  readonly answer?: (result: unknown) => unknown;
}

/**
 * Declares one operation of spec 4.5. The session is named in the body, not the path: the body
 * is validated (protocol schema), the session split off, and the rest becomes the command.
 */
export function chattingRoute<Body extends SessionBody>(app: FastifyInstance, sessions: SessionBackend, operation: ChattingOperation<Body>): void {
  const { status, answer } = operation;
  // Widened: the success status is the operation's, which TS cannot pair with its schema here.
  const response: Record<number, z.ZodType> = { [status]: operation.response, ...sessionErrors };
  typed(app).route({
    method: operation.method,
    url: operation.url,
    ...(operation.bodyLimit === undefined ? {} : { bodyLimit: operation.bodyLimit }),
    config: sessionAccess('use', 'body.session'),
    schema: {
      tags: ['Chatting'],
      summary: operation.summary,
      ...(operation.description === undefined ? {} : { description: operation.description }),
      ...(operation.deprecated ? { deprecated: true } : {}),
      body: operation.body,
      response,
    },
    handler: async (request, reply) => {
      const { session, ...args } = request.body as z.output<Body>;
      const result = await sessions.command(session, operation.command(args));
      return reply.code(status).send(answer ? answer(result) : result);
    },
  });
}
