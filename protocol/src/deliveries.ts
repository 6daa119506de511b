import { z } from 'zod';
import { EventName } from './events/names.js';
import { EventId } from './ids.js';

/**
 * Our addition to the interface (docs/events.md): webhook deliveries that used up their attempts
 * are kept as dead, listed and replayed per session, and a receiver back from an outage reads the
 * events it may have missed from the session's event log.
 */

/**
 * Why a delivery attempt failed, coarse on purpose: the exact error (a refused port, a status
 * per address) would make the dead-delivery list a scanner of whatever the webhook url can
 * reach. The logs keep the details.
 */
export const DeliveryFailureReason = z.enum(['refused', 'timeout', 'http_4xx', 'http_5xx', 'blocked_address', 'secret_unavailable', 'gone']).meta({
  id: 'DeliveryFailureReason',
  description:
    'refused: no answer taken (no connection, a reset, a TLS or DNS failure, a redirect or another status that is not 2xx, 4xx or 5xx); ' +
    'timeout: no answer in time; http_4xx, http_5xx: the status class the receiver answered; ' +
    'blocked_address: the outbound address policy refused the address, nothing was sent; ' +
    'secret_unavailable: cluster mode, a Secret the webhook names (its HMAC key, a header value) could not be read, nothing was sent; ' +
    'gone: the receiver answered 410 Gone, or the webhook was disabled by such an answer and nothing was sent',
});
export type DeliveryFailureReason = z.infer<typeof DeliveryFailureReason>;

export const DeadDelivery = z
  .object({
    id: z.number().int().positive().meta({ description: 'Id of this dead delivery, for a replay' }),
    eventId: EventId,
    event: EventName,
    session: z.string(),
    url: z.string().meta({ description: 'The webhook the delivery was for, with its user info and query values masked as "***"' }),
    attempts: z.number().int().min(1),
    lastError: DeliveryFailureReason.nullable().meta({ description: 'Why the last attempt failed' }),
    createdAt: z.number().int().meta({ description: 'When the delivery was queued, ms since the epoch' }),
    deadAt: z.number().int().meta({ description: 'When its last attempt failed, ms since the epoch' }),
  })
  .meta({ id: 'DeadDelivery' });
export type DeadDelivery = z.infer<typeof DeadDelivery>;

export const DeadDeliveryQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  offset: z.coerce.number().int().min(0).default(0),
});
export type DeadDeliveryQuery = z.infer<typeof DeadDeliveryQuery>;

export const ReplayRequest = z
  .object({
    ids: z
      .array(z.number().int().positive())
      .min(1)
      .max(1000)
      .optional()
      .meta({ description: 'Dead deliveries to replay; all of the session when left out' }),
  })
  .meta({ id: 'ReplayRequest' });
export type ReplayRequest = z.infer<typeof ReplayRequest>;

export const ReplaySkip = z.object({
  id: z.number().int(),
  reason: z.string().meta({ examples: ['the session has no webhook with this url any more'] }),
});

export const ReplayResult = z
  .object({
    replayed: z.array(z.number().int()).meta({ description: 'Ids queued again, from their first attempt' }),
    skipped: z.array(ReplaySkip).meta({ description: 'Ids left dead, each with the reason' }),
  })
  .meta({ id: 'ReplayResult' });
export type ReplayResult = z.infer<typeof ReplayResult>;

export const EventLogQuery = z.object({
  since: EventId.optional().meta({
    description: 'Return the events after this one; from the oldest kept when left out',
  }),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});
export type EventLogQuery = z.infer<typeof EventLogQuery>;

/**
 * A webhook of the session that its receiver disabled with a 410 Gone (docs/events.md): nothing is
 * sent to it, its deliveries are kept as dead, until it is enabled again.
 */
export const DisabledWebhook = z
  .object({
    url: z.string().meta({ description: 'The webhook, with its user info and query values masked as "***"' }),
    reason: z.literal('gone').meta({ description: 'Why it is disabled: its receiver answered 410 Gone' }),
    disabledAt: z.number().int().meta({ description: 'When, ms since the epoch' }),
  })
  .meta({ id: 'DisabledWebhook' });
export type DisabledWebhook = z.infer<typeof DisabledWebhook>;

export const EnableWebhooksRequest = z
  .object({
    urls: z
      .array(z.string().min(1).max(8192))
      .min(1)
      .max(20)
      .optional()
      .meta({ description: 'The disabled webhooks to enable, by url as the list shows it; all of the session when left out' }),
  })
  .meta({ id: 'EnableWebhooksRequest' });
export type EnableWebhooksRequest = z.infer<typeof EnableWebhooksRequest>;

export const EnableWebhooksResult = z
  .object({ enabled: z.array(z.string()).meta({ description: 'The webhooks enabled again, by url as the list shows it' }) })
  .meta({ id: 'EnableWebhooksResult' });
export type EnableWebhooksResult = z.infer<typeof EnableWebhooksResult>;
