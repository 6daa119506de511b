import http from 'node:http';
import type { Duplex } from 'node:stream';
import { CommandError } from '@switchboard/engine-pod';
import { type CommandErrorCode, type ErrorBody, type FieldIssue, QueueFullDetails } from '@switchboard/protocol';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Payload Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
  507: 'Insufficient Storage',
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

/** A request refused for now, not for what it asks: 429, with how long to wait in `Retry-After`. */
export class TooManyRequests extends ApiError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
    details?: unknown,
  ) {
    super(429, message, details);
  }
}

/**
 * A session create under a name that is taken: 422, as the peer product answers it, so that its
 * clients' handling of the case works unchanged (issue 16; the spec does not say).
 */
export class SessionExists extends ApiError {
  constructor(session: string) {
    super(422, `session '${session}' already exists`, { session });
  }
}

const COMMAND_STATUS: Record<CommandErrorCode, number> = {
  INVALID: 400,
  NOT_FOUND: 404,
  WRONG_STATUS: 422,
  NOT_SUPPORTED: 422,
  ENGINE_ERROR: 500,
  NOT_STORED: 503,
  STORAGE_FULL: 507,
  QUEUE_FULL: 429,
  CONFLICT: 409,
};

/** A QUEUE_FULL's `Retry-After` (protocol QueueFullDetails), at least one second. */
function retryAfterOf(details: unknown): number {
  const parsed = QueueFullDetails.shape.retryAfterSeconds.safeParse((details as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds);
  return parsed.success ? parsed.data : 1;
}

function errorBody(statusCode: number, message: string, details?: unknown): ErrorBody {
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
      if (error instanceof TooManyRequests) reply.header('retry-after', String(error.retryAfterSeconds));
      return reply.code(error.statusCode).send(errorBody(error.statusCode, error.message, error.details));
    }
    if (error instanceof CommandError) {
      const status = COMMAND_STATUS[error.code];
      if (error.code === 'QUEUE_FULL') reply.header('retry-after', String(retryAfterOf(error.details)));
      if (status >= 500) request.log.error({ err: error }, 'engine command failed');
      return reply.code(status).send(errorBody(status, error.message, error.details));
    }
    if (isDiskFull(error)) {
      request.log.error({ err: error }, 'a write failed: the data directory is full');
      return reply.code(507).send(errorBody(507, 'the data directory is full: nothing was changed; free space and try again'));
    }
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      lingerForBody(request, reply);
      const limit = request.routeOptions.bodyLimit;
      return reply.code(413).send(errorBody(413, `request body is larger than ${sizeOf(limit)}, the most this route accepts`, { limit }));
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
    const path = request.url.split('?')[0] ?? '/';
    const allowed = METHODS.filter((method) => app.findRoute({ method, url: path }) !== null);
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      return reply.code(405).send(errorBody(405, `${request.method} is not allowed on ${path}; allowed: ${allowed.join(', ')}`, { allowed }));
    }
    return reply.code(404).send(errorBody(404, `no route ${request.method} ${path}`));
  });
}

/** SQLite's SQLITE_FULL, as node:sqlite reports it: a write that found no space left. */
function isDiskFull(error: unknown): boolean {
  return (error as { code?: unknown }).code === 'ERR_SQLITE_ERROR' && (error as { errcode?: unknown }).errcode === 13;
}

/** The methods a 405 may offer in its `Allow` header (fastify answers HEAD wherever GET is). */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** `16 MiB` for a whole number of MiB, else bytes. */
function sizeOf(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return Number.isInteger(mib) ? `${mib} MiB` : `${bytes} bytes`;
}

/** Most bytes of a path parameter the router takes (fastify's maxParamLength, its default). */
export const MAX_PARAM_LENGTH = 100;

/**
 * Errors the router raises before any route runs (fastify `frameworkErrors`): answered in the
 * same body as every other error, not fastify's own (which adds `code` and keeps "Bad Request"
 * beside a 414).
 */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    reply.code(414).send(errorBody(414, `a path segment is longer than ${MAX_PARAM_LENGTH} characters, the most a route takes`));
    return;
  }
  reply.code(400).send(errorBody(400, 'the URL path is not valid: a percent-encoding in it does not decode'));
}

/**
 * Requests Node's HTTP parser refuses before fastify sees them (fastify `clientErrorHandler`):
 * written to the socket by hand, since there is no request, in the same body as every error.
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, `the request line and headers are larger than ${http.maxHeaderSize} bytes together, the most this server reads`]
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'the request did not arrive in time']
        : [400, 'the request is not valid HTTP/1.1'];
  const body = JSON.stringify(errorBody(status, message));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${REASONS[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
