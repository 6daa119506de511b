import { ACKS, type MessageRecord, messageId, type SimulateMessage } from '@switchboard/protocol';
import type { z } from 'zod';
import { sandboxMessageId } from '../codes.js';
import type { SandboxSide } from '../sandbox-side.js';

/** An incoming text: `message` and `message.any`, source `app`. */
export async function simulateMessage(
  side: SandboxSide,
  request: z.infer<typeof SimulateMessage>,
): Promise<Record<string, unknown>> {
  const me = side.requireWorking();
  const record: MessageRecord = {
    id: messageId(false, request.from, request.id ?? sandboxMessageId()),
    timestamp: Date.now() / 1000,
    from: request.from,
    fromMe: false,
    source: 'app',
    to: me.id,
    participant: null,
    body: request.body,
    hasMedia: false,
    media: null,
    ack: ACKS.DEVICE,
    ackName: 'DEVICE',
    vCards: [],
    replyTo: null,
    _data: { engine: 'SANDBOX' },
  };
  side.context.emit('message', record);
  side.context.emit('message.any', record);
  return { id: record.id };
}
