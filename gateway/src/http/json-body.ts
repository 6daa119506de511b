import type { FastifyInstance } from 'fastify';

/**
 * JSON bodies, where an empty body counts as no body: clients often send
 * `Content-Type: application/json` on bodiless POSTs (`/start`, `/stop`), which is not an error.
 * The body stays a string until here so the size limit applies before parsing.
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  // JSON only: fastify's own text/plain parser would hand a string to the validators, which
  // then answer 400 instead of the 415 (docs/api.md, "Errors") every other type gets.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = (body as string).trim();
    if (text === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch (error) {
      const syntax = error as SyntaxError;
      done(Object.assign(new SyntaxError(syntax.message), { statusCode: 400 }), undefined);
    }
  });
}
