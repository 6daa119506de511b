import { z } from 'zod';
import { KV_BUCKETS } from './cluster.js';
import { PacedCommand } from './commands.js';
import { QueuedSend } from './sending.js';

/*
 * Paced sending in cluster mode: what the session's engine pod keeps in the KV bucket
 * `KV_BUCKETS.sendQueues`, so that the next pod of the session (moved, restarted, killed) finds the
 * queue in its order, the sends that count in the pacing windows, and the pairing date. Only the
 * pod holding the session's lease writes; every record carries that lease's fencing token, and a
 * pod writes a key only by compare-and-set on the revision it read, so a pod that lost the lease
 * cannot overwrite what the next holder wrote. Both engine pods (Node, Go) read and write these.
 */

/**
 * A KV key token for a value that may hold any character (`:`, `.`, `@`, spaces), while a key
 * allows only `-/_=.a-zA-Z0-9` and dots split it into tokens: base64url never yields `.` or `=`,
 * so `=` can stand for the empty string, which would otherwise be an empty token. The keys of
 * `sb_auth`, `sb_messages` and `sb_send_queues` all use it.
 */
export function kvKeyToken(value: string): string {
  return value === '' ? '=' : Buffer.from(value, 'utf8').toString('base64url');
}

/** Keys of `KV_BUCKETS.sendQueues`, all under `<session>.` (the engine pod's NATS user may write those only). */
export const SEND_QUEUE_KEYS = {
  /** One waiting send: a SendQueueRecord. `<id>` in base64url. */
  queued: (session: string, id: string) => `${session}.queue.${kvKeyToken(id)}`,
  /** Every waiting send of a session (a key filter). */
  allQueued: (session: string) => `${session}.queue.*`,
  /** The sends of one minute (unix ms / 60000, in decimal): a SentMinuteRecord. Kept two days. */
  sentMinute: (session: string, minute: number) => `${session}.sent.${minute}`,
  allSent: (session: string) => `${session}.sent.*`,
  /** The pairing date the warm-up counts from: a SendPairingRecord. */
  pairing: (session: string) => `${session}.pairing`,
  /** Everything of a session (what a delete purges). */
  all: (session: string) => `${session}.>`,
} as const;

/** How long sent sends are kept: the warm-up counts one day of them, the windows one minute. */
export const SENT_KEPT_MS = 2 * 24 * 60 * 60_000;

const fencingToken = z.int().min(1).meta({
  description:
    "The session lease's fencing token of the pod that wrote it (SessionLease.fencingToken): a record of a higher token is a later holder's",
});

/** A waiting send, `state` `sending` once handed to the engine (its fate is looked up in the history on recovery). */
export const SendQueueRecord = QueuedSend.extend({
  // As the engine command has it: a record is never refused for a chat id written by an older build.
  chatId: z.string().min(1),
  command: PacedCommand,
  seq: z.int().min(1).meta({
    description:
      "Queue order within the session: a new send gets one more than the highest ever given (the pod's counter, restored from the records)",
  }),
  fencingToken,
}).meta({ id: 'SendQueueRecord' });
export type SendQueueRecord = z.infer<typeof SendQueueRecord>;

export const SentSendRecord = z
  .object({ chatId: z.string().min(1), at: z.int().meta({ description: 'When it went out, unix ms' }) })
  .meta({ id: 'SentSendRecord' });

/** The sends of one minute: what the pacing windows and the warm-up's daily cap count. */
export const SentMinuteRecord = z.object({ sends: z.array(SentSendRecord), fencingToken }).meta({ id: 'SentMinuteRecord' });
export type SentMinuteRecord = z.infer<typeof SentMinuteRecord>;

/** Written once, when the session is first seen paired; a logout deletes it. */
export const SendPairingRecord = z.object({ pairedAt: z.int().meta({ description: 'unix ms' }), fencingToken }).meta({ id: 'SendPairingRecord' });
export type SendPairingRecord = z.infer<typeof SendPairingRecord>;

/** The bucket, for readers that want the name beside the keys. */
export const SEND_QUEUE_BUCKET = KV_BUCKETS.sendQueues;
