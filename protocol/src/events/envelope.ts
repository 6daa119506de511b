import { z } from 'zod';
import { EngineName } from '../engines.js';
import { EventId } from '../ids.js';
import { MeInfo } from '../session.js';
import { EVENT_NAMES, EventName } from './names.js';
import { EVENT_PAYLOADS } from './payloads.js';
import { DEPRECATED_EVENTS, EVENT_SUMMARIES } from './summaries.js';

/**
 * Spec 2.4's `environment`, with the members the peer product's clients also parse (issue 16):
 * `platform` and `worker`. `browser` only where there is one, on the browser engines: the spec
 * makes it optional and a socket engine runs none.
 */
export const Environment = z
  .object({
    tier: z.string(),
    version: z.string(),
    engine: z.string(),
    browser: z.string().optional().meta({ description: 'The browser the engine drives: browser engines only' }),
    platform: z.string().meta({ description: 'Operating system and CPU architecture, `linux/x64`' }),
    worker: z.object({
      // A string in both modes: the peer's clients (waha-py) read it as one.
      id: z.string().meta({
        description: 'The process that runs the session: its engine pod in cluster mode, the gateway’s host name in local mode',
      }),
    }),
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

/** Component name of one event's envelope in the OpenAPI document: `session.status` is `WebhookSessionStatus`. */
export function webhookSchemaId(name: EventName): string {
  return `Webhook${name
    .split('.')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('')}`;
}

function eventEnvelope<E extends EventName>(name: E) {
  return z
    .object({ ...envelopeFields, event: z.literal(name), payload: EVENT_PAYLOADS[name] })
    .meta({ id: webhookSchemaId(name), description: EVENT_SUMMARIES[name], deprecated: DEPRECATED_EVENTS.has(name) });
}

/**
 * The envelope of every event, its `event` that name and its payload that event's schema. Built
 * once: the gateway checks every event against these before delivering it, and the OpenAPI
 * document's `webhooks` section names them.
 */
export const EVENT_ENVELOPES = Object.fromEntries(EVENT_NAMES.map((name) => [name, eventEnvelope(name)])) as {
  readonly [E in EventName]: ReturnType<typeof eventEnvelope<E>>;
};

/** The envelope of one event, its payload checked against that event's schema. */
export function envelopeSchema<E extends EventName>(name: E): (typeof EVENT_ENVELOPES)[E] {
  return EVENT_ENVELOPES[name];
}

/** Validates an envelope against its own event's payload schema. */
export function parseEnvelope(value: unknown): EventEnvelope {
  const base = EventEnvelope.parse(value);
  envelopeSchema(base.event).parse(value);
  return base;
}
