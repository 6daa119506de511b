import { z } from 'zod';
import { EngineName } from '../engines.js';
import { EventId } from '../ids.js';
import { MeInfo } from '../session.js';
import { EventName } from './names.js';
import { EVENT_PAYLOADS } from './payloads.js';

export const Environment = z
  .object({
    tier: z.string(),
    version: z.string(),
    engine: z.string(),
    browser: z.string().optional(),
  })
  .meta({ id: 'Environment' });
export type Environment = z.infer<typeof Environment>;

const envelopeFields = {
  id: EventId,
  timestamp: z.number().int().meta({ description: 'Milliseconds since the Unix epoch' }),
  session: z.string(),
  metadata: z.record(z.string(), z.string()),
  me: MeInfo.optional().meta({ description: 'Present when the session is authenticated and WORKING' }),
  environment: Environment,
  engine: EngineName,
};

/** Spec 2.4: the webhook body and websocket frame, with any payload. */
export const EventEnvelope = z
  .object({ ...envelopeFields, event: EventName, payload: z.record(z.string(), z.unknown()) })
  .meta({ id: 'EventEnvelope' });
export type EventEnvelope = z.infer<typeof EventEnvelope>;

/** The envelope of one event, its payload checked against that event's schema. */
export function envelopeSchema(name: EventName) {
  return z.object({ ...envelopeFields, event: z.literal(name), payload: EVENT_PAYLOADS[name] });
}

/** Validates an envelope against its own event's payload schema. */
export function parseEnvelope(value: unknown): EventEnvelope {
  const base = EventEnvelope.parse(value);
  envelopeSchema(base.event).parse(value);
  return base;
}
