import { ACKS, type MessageRecord } from '@switchboard/protocol';
import type { MessageEnds } from './simulations/addressing.js';
import { nowSeconds } from './simulations/world-ids.js';

/**
 * A message record (spec 2.5) as the SANDBOX makes every one: who sent it where (`ends`), then
 * what its kind sets (`fields`). Unless set there: no text, media, cards or quote, from the
 * phone's app and delivered, `_data` naming the engine.
 */
export function messageRecord(ends: MessageEnds, fields: Partial<MessageRecord> = {}): MessageRecord {
  return {
    ...ends,
    timestamp: nowSeconds(),
    source: 'app',
    body: '',
    hasMedia: false,
    media: null,
    ack: ACKS.DEVICE,
    ackName: 'DEVICE',
    vCards: [],
    replyTo: null,
    _data: { engine: 'SANDBOX' },
    ...fields,
  };
}
