import type { Principal } from '../auth/principal.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who called, set by the key check on every /api route (auth/route-guard.ts). */
    principal: Principal | null;
  }
}
