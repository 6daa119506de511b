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
    _data: { engine: 'SANDBOX', key: rawKey(request) },
  });
  if (request.pn) side.world.lids.set(rawKey(request).participant ?? request.from, request.pn);
  side.context.emit('message', record);
  side.context.emit('message.any', record);
  return media ? { id: record.id, media } : { id: record.id };
}

/**
 * The message's key as NOWEB and GOWS put it in `_data`: the chat, the sender in a group, and the
 * phone-number id beside a linked id (`remoteJidAlt`, `participantAlt`) when the service told it.
 */
function rawKey(request: z.infer<typeof SimulateMessage>): Record<string, string> & { participant?: string } {
  const group = request.from.endsWith('@g.us');
  const participant = group ? request.participant : undefined;
  return {
    remoteJid: request.from,
    ...(request.pn && !group ? { remoteJidAlt: request.pn } : {}),
    ...(participant ? { participant } : {}),
    ...(request.pn && group ? { participantAlt: request.pn } : {}),
  };
}
