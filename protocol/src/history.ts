import { z } from 'zod';
import { ChatId, DEFAULT_SESSION, SessionName } from './ids.js';
import { ACKS, type Ack, AckName } from './message.js';
import { QueryBoolean } from './session.js';

/** A query value that must be a number: an empty or wordy value is refused, not read as 0. */
const queryNumber = () =>
  z
    .string()
    .regex(/^\s*-?\d+(\.\d+)?\s*$/, { message: 'must be a number' })
    .transform(Number);

/** The most records one page may hold. */
export const HISTORY_MAX_LIMIT = 1000;

/**
 * The query of both history reads. The filter keys are literally `filter.timestamp.lte` and
 * so on: that is how clients of this interface send them, and the query parser keeps them flat.
 */
const historyQueryFields = {
  // Integers by coercion, as on the other paged routes, so the OpenAPI document says integer and its bounds.
  // 0 is what the peer's n8n node sends by default, and on the peer's default engine it sets no
  // limit: here it is the largest page.
  limit: z.coerce
    .number()
    .int()
    .min(0)
    .max(HISTORY_MAX_LIMIT)
    .default(10)
    .transform((limit) => (limit === 0 ? HISTORY_MAX_LIMIT : limit))
    .meta({ description: `How many records: default 10, at most ${HISTORY_MAX_LIMIT}; 0 sets no limit of its own (${HISTORY_MAX_LIMIT})` }),
  offset: z.coerce.number().int().min(0).default(0).meta({ description: 'How many records to skip: default 0' }),
  sortBy: z
    .enum(['timestamp', 'messageTimestamp'])
    .default('timestamp')
    .meta({ description: 'Both sort by the message timestamp; `messageTimestamp` is its name in NOWEB' }),
  sortOrder: z.enum(['desc', 'asc']).default('desc').meta({ description: '`desc`: newest first (default); `asc`: oldest first' }),
  downloadMedia: QueryBoolean.default(true).meta({ description: 'Default true; false: `media` is null in every record' }),
  merge: QueryBoolean.default(true).meta({
    description: 'Default true: include the chat’s other address (`@lid` / `@c.us`) when it is known',
  }),
  'filter.timestamp.lte': queryNumber().optional().meta({ description: 'Messages up to this Unix time (seconds), inclusive' }),
  'filter.timestamp.gte': queryNumber().optional().meta({ description: 'Messages from this Unix time (seconds), inclusive' }),
  'filter.fromMe': QueryBoolean.optional().meta({ description: 'Only messages sent (true) or received (false)' }),
  'filter.ack': AckName.optional().meta({ description: 'Only messages with this acknowledgement' }),
};

/** `GET /api/{session}/chats/{chatId}/messages`. */
export const ChatMessagesQuery = z.object(historyQueryFields);
export type ChatMessagesQuery = z.infer<typeof ChatMessagesQuery>;

export const ChatMessagesParams = z.object({ session: SessionName, chatId: ChatId });

/** Deprecated `GET /api/messages`: the same, with the chat and session in the query. */
export const MessagesQuery = z.object({
  chatId: ChatId,
  session: SessionName.default(DEFAULT_SESSION),
  ...historyQueryFields,
});
export type MessagesQuery = z.infer<typeof MessagesQuery>;

/** What a message store answers: one chat's records, filtered, sorted by timestamp, one page. */
export interface HistoryQuery {
  readonly chatId: string;
  /** Also the records under the chat's other address (`@lid` / `@c.us`), when known. */
  readonly merge: boolean;
  readonly limit: number;
  readonly offset: number;
  readonly sortOrder: 'asc' | 'desc';
  readonly timestampLte?: number | undefined;
  readonly timestampGte?: number | undefined;
  readonly fromMe?: boolean | undefined;
  readonly ack?: Ack | undefined;
}

export function historyQuery(chatId: string, query: ChatMessagesQuery): HistoryQuery {
  const ack = query['filter.ack'];
  return {
    chatId,
    merge: query.merge,
    limit: query.limit,
    offset: query.offset,
    sortOrder: query.sortOrder,
    timestampLte: query['filter.timestamp.lte'],
    timestampGte: query['filter.timestamp.gte'],
    fromMe: query['filter.fromMe'],
    ack: ack === undefined ? undefined : ACKS[ack],
  };
}
