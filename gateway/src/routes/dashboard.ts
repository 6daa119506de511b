import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/**
 * The page may load its own script, style and images, and talk to this origin's API and /ws,
 * nothing else: no fonts, CDNs or analytics, no inline script, no framing by another site.
 * `data:` images are the QR codes, which come from the API as base64 PNGs.
 */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The built dashboard (dashboard/dist, `make build`), or null when it was not built. */
export function dashboardDir(): string | null {
  const pkg = fileURLToPath(import.meta.resolve('@switchboard/dashboard/package.json'));
  const dist = join(dirname(pkg), 'dist');
  return existsSync(join(dist, 'index.html')) ? dist : null;
}

/**
 * The browser dashboard (dashboard/README.md) at /dashboard: static files only. It holds no
 * secret and needs none: the page asks the person for an API key and calls /api and /ws with
 * it, as any client does, so every check stays the API's own.
 */
export async function dashboardRoutes(app: FastifyInstance, { root }: { root: string }): Promise<void> {
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('Content-Security-Policy', DASHBOARD_CSP);
    reply.header('X-Content-Type-Options', 'nosniff');
    reply.header('Referrer-Policy', 'no-referrer');
    reply.header('Cross-Origin-Opener-Policy', 'same-origin');
    return payload;
  });
  await app.register(fastifyStatic, {
    root,
    prefix: '/dashboard/',
    // /dashboard and /dashboard/ both answer the page; assets have hashed names, the page does not.
    redirect: false,
    index: ['index.html'],
    wildcard: true,
    cacheControl: false,
    setHeaders: (response, path) => {
      response.header('Cache-Control', path.endsWith('.html') ? 'no-cache' : 'public, max-age=31536000, immutable');
    },
  });
  app.get('/dashboard', { schema: { hide: true } }, (_request, reply) => reply.sendFile('index.html'));
}
