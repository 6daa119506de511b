import { DEPRECATED_EVENTS, EVENT_NAMES, EVENT_SUMMARIES, type EventName, webhookSchemaId } from '@switchboard/protocol';

/** What every delivery carries besides the body (spec 6.1); the HMAC pair only with `hmac.key`. */
const DELIVERY_HEADERS = [
  { name: 'X-Webhook-Request-Id', required: true, description: 'Unique id of this request (new for each attempt)' },
  { name: 'X-Webhook-Timestamp', required: true, description: 'Unix time in milliseconds when this attempt was sent' },
  { name: 'X-Webhook-Hmac', required: false, description: 'Hex HMAC-SHA512 of the raw body with `hmac.key`' },
  { name: 'X-Webhook-Hmac-Algorithm', required: false, description: '`sha512`, with X-Webhook-Hmac' },
].map((header) => ({ in: 'header', schema: { type: 'string' }, ...header }));

/**
 * The OpenAPI 3.1 `webhooks` section: one entry per event of spec 6.2, whose body is that
 * event's envelope (component `Webhook<Event>`: `event` the name, `payload` its schema). Receivers
 * generate their handler types from it. The websocket sends the same envelopes as frames.
 */
export function eventWebhooks(): Record<EventName, object> {
  return Object.fromEntries(EVENT_NAMES.map((name) => [name, { post: webhookOperation(name) }])) as Record<EventName, object>;
}

function webhookOperation(name: EventName): object {
  return {
    operationId: `on${webhookSchemaId(name)}`,
    summary: `${name}: ${EVENT_SUMMARIES[name]}`,
    tags: ['Events'],
    deprecated: DEPRECATED_EVENTS.has(name),
    parameters: DELIVERY_HEADERS,
    requestBody: {
      required: true,
      content: { 'application/json': { schema: { $ref: `#/components/schemas/${webhookSchemaId(name)}` } } },
    },
    responses: {
      '200': { description: 'Any 2xx answer within 10 seconds is a delivery; anything else is retried per `retries`.' },
    },
  };
}
