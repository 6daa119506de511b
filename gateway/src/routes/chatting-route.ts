import type { EngineCommand } from '@switchboard/protocol';
import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import { sessionAccess } from '../auth/access.js';
import { pacedResponses, sendWaitHeaders, sendWaitOf } from '../sending/paced-route.js';
import type { PacedEngineCommand } from '@switchboard/engine-pod';
import { type RouteDeps, typed } from './context.js';
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
  /** A new message in a chat: it waits in the session's send queue when the session paces its sends. */
  readonly paced?: boolean;
}

/**
 * Declares one operation of spec 4.5. The session is named in the body, not the path: the body
 * is validated (protocol schema), the session split off, and the rest becomes the command.
 */
export function chattingRoute<Body extends SessionBody>(
  app: FastifyInstance,
  { sessions, sendQueues }: Pick<RouteDeps, 'sessions' | 'sendQueues'>,
  operation: ChattingOperation<Body>,
): void {
  const { status, answer } = operation;
  const paced = operation.paced === true && sendQueues !== undefined;
  // Widened: the success status is the operation's, which TS cannot pair with its schema here.
  const response: Record<number, z.ZodType> = { [status]: operation.response, ...sessionErrors };
  if (paced) Object.assign(response, pacedResponses);
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
      ...(paced ? { headers: sendWaitHeaders } : {}),
      response,
    },
    handler: async (request, reply) => {
      const { session, ...args } = request.body as z.output<Body>;
      const command = operation.command(args);
      if (paced && sendQueues.sendingOf(session)) {
        const outcome = await sendQueues.submit(session, operation.url, command as PacedEngineCommand, sendWaitOf(request.headers));
        if (outcome.outcome === 'queued') return reply.code(202).send(outcome.queued);
        return reply.code(status).send(answer ? answer(outcome.result) : outcome.result);
      }
      const result = await sessions.command(session, command);
      return reply.code(status).send(answer ? answer(result) : result);
    },
  });
}
