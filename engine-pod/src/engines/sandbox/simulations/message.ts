import { type Media, type SimulateMessage, wholeSeconds } from '@switchboard/protocol';
import type { z } from 'zod';
import { messageRecord } from '../message-record.js';
import type { SandboxSide } from '../sandbox-side.js';
import { newMessageEnds } from './addressing.js';
import type { SimulationResult } from './simulation.js';

/**
 * An incoming message: `message` and `message.any`, source `app`. With `media`, the file is
 * stored first (as a real engine downloads what it receives), so `media.url` serves it.
 */
export async function simulateMessage(side: SandboxSide, request: z.infer<typeof SimulateMessage>): SimulationResult {
  const me = side.requireWorking();
  let media: Media | null = null;
  if (request.media) {
    const { mimetype, filename, data } = request.media;
    media = await side.context.saveMedia({ mimetype, filename: filename ?? null, data: Buffer.from(data, 'base64') });
  }
  // A group message names its sender, in `participant` and at the end of its id, as real ones do.
  const record = messageRecord(newMessageEnds(me, request.from, false, request.participant, request.id), {
    timestamp: wholeSeconds(),
    body: request.body ?? '',
    hasMedia: request.media !== undefined,
    media,
  });
  side.context.emit('message', record);
  side.context.emit('message.any', record);
  return media ? { id: record.id, media } : { id: record.id };
}
