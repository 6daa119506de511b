import { z } from 'zod';
import { ChatId, SessionName } from './ids.js';

/*
 * Paced sending (issue 32, docs/api.md "Paced sending"): an extension of this build, off unless a
 * session's config has `sending`. The peer product has no such member, so its clients never meet
 * it: their sends answer as before.
 */

const perMinute = (what: string) =>
  z
    .int()
    .min(1)
    .max(600)
    .optional()
    .meta({ description: `The most sends ${what} in any 60 seconds (1 to 600); no limit when absent` });

/** A random pause between two sends of the session, drawn anew after each send. */
export const SendDelayRange = z
  .object({
    minMs: z.number().int().min(0).max(3_600_000).meta({ description: 'Shortest pause, in milliseconds (0 to 3600000)' }),
    maxMs: z.number().int().min(0).max(3_600_000).meta({ description: 'Longest pause, in milliseconds (minMs to 3600000)' }),
  })
  .refine(({ minMs, maxMs }) => maxMs >= minMs, { message: 'must be at least minMs', path: ['maxMs'] })
  .meta({ id: 'SendDelayRange' });

/** Composing presence before a text, for a time growing with its length, then paused. */
export const TypingConfig = z
  .object({
    msPerChar: z
      .number()
      .int()
      .min(0)
      .max(1000)
      .default(50)
      .meta({ description: 'Milliseconds of typing per character of the text (0 to 1000; default 50)' }),
    minMs: z.number().int().min(0).max(60_000).default(1000).meta({ description: 'Shortest typing, in milliseconds (0 to 60000; default 1000)' }),
    maxMs: z.number().int().min(0).max(60_000).default(8000).meta({ description: 'Longest typing, in milliseconds (minMs to 60000; default 8000)' }),
  })
  .refine(({ minMs, maxMs }) => maxMs >= minMs, { message: 'must be at least minMs', path: ['maxMs'] })
  .meta({ id: 'TypingConfig' });
export type TypingConfig = z.infer<typeof TypingConfig>;

/**
 * A new account's daily cap: `start` sends on its first day (counted from its pairing), `step`
 * more each day after, never more than `max`. Days are 24-hour periods from the pairing.
 */
export const WarmupConfig = z
  .object({
    start: z.number().int().min(1).max(100_000).meta({ description: 'Sends allowed on the first day (1 to 100000)' }),
    step: z.number().int().min(0).max(100_000).meta({ description: 'How many more each following day (0 to 100000)' }),
    max: z.number().int().min(1).max(100_000).meta({ description: 'The cap it stops rising at (start to 100000)' }),
  })
  .refine(({ start, max }) => max >= start, { message: 'must be at least start', path: ['max'] })
  .meta({ id: 'WarmupConfig' });
export type WarmupConfig = z.infer<typeof WarmupConfig>;

export const DEFAULT_MAX_QUEUED = 1000;

export const SendingConfig = z
  .strictObject({
    perMinute: perMinute('of the session'),
    perChatPerMinute: perMinute('to one chat'),
    delay: SendDelayRange.optional(),
    typing: TypingConfig.optional().meta({ description: 'Typing before each text (sendText); none when absent' }),
    warmup: WarmupConfig.optional(),
    maxQueued: z
      .int()
      .min(1)
      .max(100_000)
      .default(DEFAULT_MAX_QUEUED)
      .meta({ description: `The most sends the session's queue holds (1 to 100000; default ${DEFAULT_MAX_QUEUED}); beyond, 429` }),
  })
  .meta({
    id: 'SendingConfig',
    description:
      'Paced sending (an extension; off when absent): sends wait in the session\'s durable queue for their slot. In local mode the gateway keeps the queue, in cluster mode the engine pod of the session. docs/api.md, "Paced sending"',
  });
export type SendingConfig = z.infer<typeof SendingConfig>;

/**
 * Cluster mode: the engine pod's variable with the session's `config.sending` (JSON, defaults
 * applied) when it starts; absent: off. A change reaches a running pod as `host.sendQueue.setConfig`.
 */
export const SENDING_VARIABLE = 'SWITCHBOARD_SENDING';

/** How long a paced send may wait for its slot before the call answers 202 (header or query). */
export const SEND_WAIT_HEADER = 'x-switchboard-wait';
export const MAX_SEND_WAIT_MS = 60_000;
export const SendWaitMs = z.coerce
  .number()
  .int()
  .min(0)
  .max(MAX_SEND_WAIT_MS)
  .meta({ description: `Milliseconds (0 to ${MAX_SEND_WAIT_MS}) a paced send may wait for its slot before answering 202` });

/** One send waiting in a session's queue. */
export const QueuedSend = z
  .object({
    id: z.string().meta({ description: 'The message id it is sent with (its events carry it), and its id in the queue' }),
    session: SessionName,
    chatId: ChatId,
    route: z.string().meta({ description: 'The route it was sent to, e.g. /api/sendText' }),
    state: z.enum(['queued', 'sending']).meta({ description: 'sending: handed to the engine; it can no longer be cancelled' }),
    queuedAt: z.number().int().meta({ description: 'When it was queued, unix milliseconds' }),
  })
  .meta({ id: 'QueuedSend' });
export type QueuedSend = z.infer<typeof QueuedSend>;

export const QueuedSendAccepted = QueuedSend.extend({
  position: z.number().int().min(0).meta({ description: 'How many sends of the session are before it' }),
}).meta({ id: 'QueuedSendAccepted', description: 'Paced sending: the send is queued; its events follow when it goes out' });
export type QueuedSendAccepted = z.infer<typeof QueuedSendAccepted>;

export const SendQueueQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  offset: z.coerce.number().int().min(0).default(0),
});
export type SendQueueQuery = z.infer<typeof SendQueueQuery>;

export const SendQueuePage = z
  .object({ total: z.number().int().min(0), items: z.array(QueuedSend) })
  .meta({ id: 'SendQueuePage', description: "The session's waiting sends, oldest first" });
export type SendQueuePage = z.infer<typeof SendQueuePage>;

export const QueuedSendParams = z.object({
  session: SessionName,
  id: z.string().min(1).max(64),
});

/**
 * What a paced send's call gets (the pacer's answer, and the result of `host.sendQueue.submit` in
 * cluster mode): `sent` with the engine's result when it went out within the wait, else `queued`.
 */
export const SendQueueSubmitResult = z
  .discriminatedUnion('outcome', [
    z.object({ outcome: z.literal('sent'), result: z.unknown() }),
    z.object({ outcome: z.literal('queued'), queued: QueuedSendAccepted }),
  ])
  .meta({ id: 'SendQueueSubmitResult' });
export type SendQueueSubmitResult = z.infer<typeof SendQueueSubmitResult>;

/** The result of `host.sendQueue.cancel`: false when the send is gone, sent or being sent. */
export const SendQueueCancelResult = z.object({ cancelled: z.boolean() }).meta({ id: 'SendQueueCancelResult' });
export type SendQueueCancelResult = z.infer<typeof SendQueueCancelResult>;

/** The details of a QUEUE_FULL refusal: the gateway's 429 and its `Retry-After`. */
export const QueueFullDetails = z
  .object({
    session: SessionName,
    limit: z.int().min(1).meta({ description: "The session's maxQueued" }),
    retryAfterSeconds: z.int().min(1).meta({ description: 'When the next send of the queue is due, in whole seconds (at least 1)' }),
  })
  .meta({ id: 'QueueFullDetails' });
export type QueueFullDetails = z.infer<typeof QueueFullDetails>;
