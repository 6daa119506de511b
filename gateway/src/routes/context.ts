import type { OutboundPolicy } from '@switchboard/kube';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { ConversionQueue } from '../conversions/conversion-queue.js';
import type { SendQueues } from '@switchboard/engine-pod';
import type { SessionBackend } from '../sessions/backend.js';

/** What every route plugin is given. */
export interface RouteDeps {
  readonly sessions: SessionBackend;
  /** Where webhooks may be aimed (session configs are checked against it). */
  readonly outbound: OutboundPolicy;
  /** Largest body of the routes that take base64 files (spec 4.5 media), in bytes. */
  readonly mediaBodyLimit?: number;
  /** The gateway's media conversions (ffmpeg): how many run and wait at once, and per key. */
  readonly conversions: ConversionQueue;
  /** Paced sending (local mode; docs/api.md "Paced sending"): absent, every send goes at once. */
  readonly sendQueues?: SendQueues;
}

export function typed(app: FastifyInstance) {
  return app.withTypeProvider<ZodTypeProvider>();
}
