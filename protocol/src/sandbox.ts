import { z } from 'zod';
import { ChatId, ContactId } from './ids.js';

/**
 * `POST /api/{session}/sandbox/simulate`: plays the other side of a SANDBOX session.
 * A stable contract (docs/sandbox.md); later issues add kinds, never change these.
 */
export const SimulateScan = z.object({
  kind: z.literal('scan'),
  me: z.object({ id: ContactId, pushName: z.string().min(1).max(128) }).optional(),
});

export const SimulateMessage = z.object({
  kind: z.literal('message'),
  from: ChatId,
  body: z.string().min(1).max(65536),
  id: z.string().regex(/^[0-9A-Za-z]{1,64}$/, { message: 'must be 1-64 letters or digits' }).optional(),
});

export const SimulateRequest = z
  .discriminatedUnion('kind', [SimulateScan, SimulateMessage])
  .meta({ id: 'SimulateRequest' });
export type SimulateRequest = z.infer<typeof SimulateRequest>;

export const DEFAULT_SANDBOX_ME = { id: '15550000000@c.us', pushName: 'Sandbox' } as const;
