import type { Principal } from '../auth/authenticator.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who called, set by the API key check on every /api route. */
    principal: Principal | null;
  }
}
