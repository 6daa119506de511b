import { ACKS, type Media, type MessageRecord, messageId, type SimulateMessage } from '@switchboard/protocol';
import type { z } from 'zod';
import { sandboxMessageId } from '../codes.js';
import type { SandboxSide } from '../sandbox-side.js';

/**
 * An incoming message: `message` and `message.any`, source `app`. With `media`, the file is
 * stored first (as a real engine downloads what it receives), so `media.url` serves it.
 */
export async function simulateMessage(
  side: SandboxSide,
  request: z.infer<typeof SimulateMessage>,
): Promise<Record<string, unknown>> {
  const me = side.requireWorking();
  let media: Media | null = null;
  if (request.media) {
    const { mimetype, filename, data } = request.media;
    media = await side.context.saveMedia({ mimetype, filename: filename ?? null, data: Buffer.from(data, 'base64') });
  }
  const record: MessageRecord = {
    id: messageId(false, request.from, request.id ?? sandboxMessageId()),
    timestamp: Date.now() / 1000,
    from: request.from,
    fromMe: false,
    source: 'app',
    to: me.id,
    participant: null,
    body: request.body ?? '',
    hasMedia: request.media !== undefined,
    media,
    ack: ACKS.DEVICE,
    ackName: 'DEVICE',
    vCards: [],
    replyTo: null,
    _data: { engine: 'SANDBOX' },
  };
  side.context.emit('message', record);
  side.context.emit('message.any', record);
  return media ? { id: record.id, media } : { id: record.id };
}
