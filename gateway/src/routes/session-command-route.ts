import type { EngineCommand } from '@switchboard/protocol';
import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import { sessionAccess } from '../auth/access.js';
import type { SessionBackend } from '../sessions/backend.js';
import { typed } from './context.js';
import { sessionErrors } from './responses.js';

type Params = z.ZodType<{ session: string }>;

/** What a handler sees of the request: its validated path, query and body. */
export interface CommandRequest<P extends Params, Q extends z.ZodType, B extends z.ZodType> {
  readonly params: z.output<P>;
  readonly query: z.output<Q>;
  readonly body: z.output<B>;
}

/** One operation on the session in the path: validated input, one engine command, one success status. */
export interface SessionCommandOperation<P extends Params, Q extends z.ZodType, B extends z.ZodType> {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly url: string;
  readonly tags: readonly string[];
  readonly summary: string;
  readonly description?: string;
  readonly params: P;
  readonly querystring?: Q;
  readonly body?: B;
  readonly status: 200 | 201;
  readonly response: z.ZodType;
  readonly command: (request: CommandRequest<P, Q, B>) => EngineCommand;
  /** What the client gets from the command's result; the result itself when absent. */
  readonly answer?: (result: unknown) => unknown;
  /** What the gateway does itself once the command succeeded, before answering (its failure is the request's). */
  readonly after?: (request: CommandRequest<P, Q, B>) => Promise<void>;
}

/**
 * Declares one operation of the peer product's `/api/{session}/...` families (chats, presence,
 * calls, events): the session is in the path, the rest becomes the command.
 */
export function sessionCommandRoute<P extends Params, Q extends z.ZodType = z.ZodUndefined, B extends z.ZodType = z.ZodUndefined>(
  app: FastifyInstance,
  sessions: SessionBackend,
  operation: SessionCommandOperation<P, Q, B>,
): void {
  const { status, answer, after } = operation;
  // Widened: the success status is the operation's, which TS cannot pair with its schema here.
  const response: Record<number, z.ZodType> = { [status]: operation.response, ...sessionErrors };
  typed(app).route({
    method: operation.method,
    url: operation.url,
    config: sessionAccess('use'),
    schema: {
      tags: [...operation.tags],
      summary: operation.summary,
      ...(operation.description === undefined ? {} : { description: operation.description }),
      params: operation.params,
      ...(operation.querystring ? { querystring: operation.querystring } : {}),
      ...(operation.body ? { body: operation.body } : {}),
      response,
    },
    handler: async (request, reply) => {
      const input = request as unknown as CommandRequest<P, Q, B>;
      const result = await sessions.command(input.params.session, operation.command(input));
      await after?.(input);
      return reply.code(status).send(answer ? answer(result) : result);
    },
  });
}
