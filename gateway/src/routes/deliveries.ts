import {
  DeadDelivery,
  DeadDeliveryQuery,
  DisabledWebhook,
  EnableWebhooksRequest,
  EnableWebhooksResult,
  EventEnvelope,
  EventLogQuery,
  ReplayRequest,
  ReplayResult,
  SessionPathParams,
} from '@switchboard/protocol';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { sessionAccess } from '../auth/access.js';
import { maskUrl } from '../sessions/config-secrets.js';
import type { DeadDeliveries, EventLog, WebhookStates } from '../webhooks/ports.js';
import { typed, type RouteDeps } from './context.js';
import { commonErrors } from './responses.js';

const tags = ['Webhook deliveries'];

export interface DeliveryRouteDeps extends RouteDeps {
  readonly dead: DeadDeliveries;
  readonly eventLog: EventLog;
  readonly states: WebhookStates;
}

/**
 * Our addition (docs/events.md): dead webhook deliveries, their replay, and the event log a
 * receiver reads to catch up after an outage. Reading is `use` (it shows the session's events);
 * replay is `manage`, as it acts on the session's webhooks.
 */
export async function deliveryRoutes(app: FastifyInstance, { sessions, dead, eventLog, states }: DeliveryRouteDeps): Promise<void> {
  const r = typed(app);
  const exists = (session: string) => sessions.get(session, { expandApps: false });

  r.get('/api/:session/webhooks/dead', {
    config: sessionAccess('use'),
    schema: {
      tags,
      summary: 'Webhook deliveries that used up their attempts, oldest first',
      params: SessionPathParams,
      querystring: DeadDeliveryQuery,
      response: { 200: z.array(DeadDelivery), ...commonErrors },
    },
    handler: async (request) => {
      await exists(request.params.session);
      const deliveries = await dead.list(request.params.session, request.query);
      return deliveries.map((delivery) => ({ ...delivery, url: maskUrl(delivery.url) }));
    },
  });

  r.post('/api/:session/webhooks/dead/replay', {
    config: sessionAccess('manage'),
    schema: {
      tags,
      summary: 'Queue dead deliveries again, from their first attempt',
      description:
        'All dead deliveries of the session, or those in `ids`. Each goes to the webhook the session has now with the same url; one with no such webhook stays dead and is listed in `skipped`.',
      params: SessionPathParams,
      // No body (fastify validates it as null) means all of them, as `{}` does.
      body: ReplayRequest.nullish(),
      response: { 202: ReplayResult, ...commonErrors },
    },
    handler: async (request, reply) => {
      await exists(request.params.session);
      return reply.code(202).send(await dead.replay(request.params.session, request.body?.ids));
    },
  });

  r.get('/api/:session/webhooks/disabled', {
    config: sessionAccess('use'),
    schema: {
      tags,
      summary: 'Webhooks their receiver disabled with 410 Gone, oldest first',
      description:
        'Nothing is sent to a disabled webhook: its deliveries, pending and new, are kept as dead (`lastError` "gone"). Enable it again with POST /api/{session}/webhooks/enable, then replay its dead deliveries.',
      params: SessionPathParams,
      response: { 200: z.array(DisabledWebhook), ...commonErrors },
    },
    handler: async (request) => {
      await exists(request.params.session);
      const entries = await states.list(request.params.session);
      return entries.map(({ url, disabledAt }) => ({ url: maskUrl(url), reason: 'gone' as const, disabledAt }));
    },
  });

  r.post('/api/:session/webhooks/enable', {
    config: sessionAccess('manage'),
    schema: {
      tags,
      summary: 'Enable webhooks their receiver disabled with 410 Gone',
      description:
        'All disabled webhooks of the session, or those in `urls` (as the list of disabled webhooks shows them). Their dead deliveries stay dead until replayed. Urls that are not disabled are left out of `enabled`.',
      params: SessionPathParams,
      body: EnableWebhooksRequest.nullish(),
      response: { 200: EnableWebhooksResult, ...commonErrors },
    },
    handler: async (request) => {
      const { session } = request.params;
      await exists(session);
      const wanted = request.body?.urls;
      const held = await states.list(session);
      const urls = held.map((entry) => entry.url).filter((url) => wanted === undefined || wanted.includes(maskUrl(url)));
      const enabled = urls.length === 0 ? [] : await states.enable(session, urls);
      return { enabled: enabled.map(maskUrl) };
    },
  });

  r.get('/api/:session/event-log', {
    config: sessionAccess('use'),
    schema: {
      tags,
      summary: 'The session’s events after an event id, oldest first, to catch up after an outage',
      description:
        'Envelopes exactly as webhooks receive them. Page by passing the last id received as `since`; an empty list means caught up. Events are kept for 7 days.',
      params: SessionPathParams,
      querystring: EventLogQuery,
      response: { 200: z.array(EventEnvelope), ...commonErrors },
    },
    handler: async (request, reply) => {
      await exists(request.params.session);
      const { since, limit } = request.query;
      const events = await eventLog.since(request.params.session, since, limit);
      // The stored JSON as it is: the very bytes a webhook got, and no parse and serialize per event.
      return reply.type('application/json').send(`[${events.join(',')}]` as unknown as EventEnvelope[]);
    },
  });
}
