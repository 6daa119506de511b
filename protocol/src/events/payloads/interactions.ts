import { z } from 'zod';
import { MessageRecord, ReplyToMessage } from '../../message.js';
import { rawData } from './common.js';

/** The key of an earlier message (the poll, the event) that a vote or response points at. */
export const MessageDestination = z
  .object({
    id: z.string().meta({
      description: '{fromMe}_{chatId}_{messageId}[_{participant}]',
      examples: ['false_11111111111@c.us_AAAAAAAAAAAAAAAAAAAA'],
    }),
    to: z.string(),
    from: z.string(),
    fromMe: z.boolean(),
  })
  .meta({ id: 'MessageDestination' });
export type MessageDestination = z.infer<typeof MessageDestination>;

export const PollVote = MessageDestination.extend({
  selectedOptions: z.array(z.string()).meta({ examples: [['Awesome!']] }),
  timestamp: z.number(),
}).meta({ id: 'PollVote' });
export type PollVote = z.infer<typeof PollVote>;

export const PollVotePayload = z.object({ vote: PollVote, poll: MessageDestination }).meta({ id: 'PollVotePayload' });
export type PollVotePayload = z.infer<typeof PollVotePayload>;

/** The vote could not be decrypted, so which options were chosen is unknown. */
export const PollVoteFailedPayload = z
  .object({
    vote: PollVote.extend({ selectedOptions: z.array(z.string()).length(0) }),
    poll: MessageDestination,
  })
  .meta({ id: 'PollVoteFailedPayload' });
export type PollVoteFailedPayload = z.infer<typeof PollVoteFailedPayload>;

/** Spec 6.2 names three answers; the reference's `UNKNOWN` is not part of the contract. */
export const EventResponseValue = z.enum(['GOING', 'NOT_GOING', 'MAYBE']).meta({ id: 'EventResponseValue' });
export type EventResponseValue = z.infer<typeof EventResponseValue>;

export const EventResponse = z
  .object({
    response: EventResponseValue,
    timestampMs: z.number().meta({ description: 'Milliseconds since the Unix epoch' }),
    extraGuestCount: z.literal([0, 1]),
  })
  .meta({ id: 'EventResponse' });
export type EventResponse = z.infer<typeof EventResponse>;

/**
 * "Message-like fields plus ...": the response is itself a message, so the message record's
 * fields are accepted and the ones spec 6.2 names are required.
 */
const eventResponseMessage = MessageRecord.partial().extend({
  id: MessageRecord.shape.id,
  timestamp: MessageRecord.shape.timestamp,
  from: MessageRecord.shape.from,
  fromMe: MessageRecord.shape.fromMe,
  to: MessageRecord.shape.to,
  participant: MessageRecord.shape.participant,
  source: MessageRecord.shape.source,
  ack: MessageRecord.shape.ack,
  ackName: MessageRecord.shape.ackName,
  replyTo: ReplyToMessage.nullable(),
  _data: rawData(),
  eventCreationKey: MessageDestination,
});

export const EventResponsePayload = eventResponseMessage.extend({ eventResponse: EventResponse }).meta({ id: 'EventResponsePayload' });
export type EventResponsePayload = z.infer<typeof EventResponsePayload>;

/** Decryption failed; the event message has to be sent again to collect a new response. */
export const EventResponseFailedPayload = eventResponseMessage.extend({ eventResponse: z.null() }).meta({ id: 'EventResponseFailedPayload' });
export type EventResponseFailedPayload = z.infer<typeof EventResponseFailedPayload>;
