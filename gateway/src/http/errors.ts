import { CommandError } from '@switchboard/engine-pod';
import type { CommandErrorCode, ErrorBody, FieldIssue } from '@switchboard/protocol';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** An error a route throws on purpose: it becomes the error body of our contract as it is. */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  static notFound(session: string): ApiError {
    return new ApiError(404, `session '${session}' does not exist`, { session });
  }
}

const COMMAND_STATUS: Record<CommandErrorCode, number> = {
  INVALID: 400,
  NOT_FOUND: 404,
  WRONG_STATUS: 422,
  NOT_SUPPORTED: 422,
  ENGINE_ERROR: 500,
};

export function errorBody(statusCode: number, message: string, details?: unknown): ErrorBody {
  return {
    statusCode,
    error: REASONS[statusCode] ?? 'Error',
    message,
    ...(details === undefined ? {} : { details }),
  };
}

/** How long the rest of a refused body may take to arrive before the connection is cut. */
const LINGER_MS = 10_000;

/**
 * A body over the limit is refused before it is read. fastify answers with `Connection: close`,
 * and Node then closes the socket while the client is still sending, so the client's socket
 * fails (EPIPE, or a reset) before it reads the 413. Keeping the connection makes Node read the
 * rest and drop it, and the client gets its answer; one that is still sending after LINGER_MS
 * is cut off (nginx's lingering close does the same).
 */
function lingerForBody(request: FastifyRequest, reply: FastifyReply): void {
  reply.removeHeader('connection');
  const { raw } = request;
  if (raw.complete) return;
  const timer = setTimeout(() => raw.socket.destroy(), LINGER_MS).unref();
  raw.once('close', () => clearTimeout(timer));
}

/** `/a/0/b` (JSON pointer from the validator) as `body.a[0].b`, the way users name fields. */
function fieldPath(context: string | undefined, pointer: string): string {
  const parts = pointer.split('/').filter(Boolean);
  let path = context ?? 'body';
  for (const part of parts) path += /^\d+$/.test(part) ? `[${part}]` : `.${part}`;
  return path;
}

/**
 * Every error leaves in one shape (protocol ErrorBody). Bad input is a 4xx naming the field;
 * anything unexpected is a 500 that is logged with its stack and says nothing internal.
 */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (hasZodFastifySchemaValidationErrors(error)) {
      const details: FieldIssue[] = error.validation.map((issue) => ({
        path: fieldPath(error.validationContext, issue.instancePath),
        reason: issue.message ?? 'invalid value',
      }));
      const summary = details.map((d) => `${d.path}: ${d.reason}`).join('; ');
      return reply.code(400).send(errorBody(400, `invalid request: ${summary}`, details));
    }
    if (error instanceof ApiError) {
      return reply.code(error.statusCode).send(errorBody(error.statusCode, error.message, error.details));
    }
    if (error instanceof CommandError) {
      const status = COMMAND_STATUS[error.code];
      if (status >= 500) request.log.error({ err: error }, 'engine command failed');
      return reply.code(status).send(errorBody(status, error.message, error.details));
    }
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      lingerForBody(request, reply);
      return reply.code(413).send(errorBody(413, 'request body is larger than this server accepts'));
    }
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return reply.code(415).send(errorBody(415, 'request body must be application/json'));
    }
    if (error.statusCode === 400 || error instanceof SyntaxError) {
      return reply.code(400).send(errorBody(400, `request body is not valid JSON: ${error.message}`));
    }
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      return reply.code(error.statusCode).send(errorBody(error.statusCode, error.message));
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.code(500).send(errorBody(500, 'internal error; the server log has the details'));
  });

  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send(errorBody(404, `no route ${request.method} ${request.url.split('?')[0]}`));
  });
}
