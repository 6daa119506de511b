import { creationOf, durableStreamConfig, ensureEventStream, JS_ERR, jsErrorCode, raiseCreated, whileSeedJoins } from '@switchboard/kube';
import { STREAMS } from '@switchboard/protocol';
import type { Logger } from 'pino';
import { type ConsumerMessages, DeliverPolicy, type NatsConnection, RetentionPolicy } from 'nats';
import type { EventBus, PublishedEvent } from '../events/event-bus.js';
import type { ForgedEventGuard } from './forged-events.js';

/** Webhook deliveries that used up their attempts, one message per (event, webhook). */
export const DEAD_LETTERS = {
  stream: 'SB_DEAD',
  subject: (session: string) => `sb.dead.${session}`,
  all: 'sb.dead.>',
} as const;

/** Dead deliveries queued again by the replay API, one message per delivery, gone once handled. */
export const REPLAYS = {
  stream: 'SB_REPLAY',
  subject: (session: string) => `sb.replay.${session}`,
  all: 'sb.replay.>',
} as const;

const DEAD_LETTER_STREAM_CONFIG = durableStreamConfig(DEAD_LETTERS.stream, [DEAD_LETTERS.all], 30);
const REPLAY_STREAM_CONFIG = {
  ...durableStreamConfig(REPLAYS.stream, [REPLAYS.all], 30),
  retention: RetentionPolicy.Workqueue,
};

/**
 * Creates the streams the gateway reads and writes when they are missing: the events stream
 * with the engine pods' own settings (whichever part starts first creates it), the dead-letter
 * and the replay streams. An existing stream of the gateway's is left as an operator may have
 * tuned it.
 */
export async function ensureGatewayStreams(nc: NatsConnection): Promise<void> {
  await ensureEventStream(nc);
  for (const config of [DEAD_LETTER_STREAM_CONFIG, REPLAY_STREAM_CONFIG]) {
    await whileSeedJoins(nc, async () => {
      try {
        await (await nc.jetstreamManager()).streams.add({ ...config, ...creationOf(nc) });
      } catch (error) {
        // The name is taken: the stream exists, which is all we need (and it keeps any tuning).
        if (jsErrorCode(error) !== JS_ERR.streamNameInUse) throw error;
      }
      await raiseCreated(nc, config.name);
    });
  }
}

/**
 * An event as an engine pod published it. The raw text is kept as the event's JSON, so webhooks
 * and websockets send the very bytes the engine made (and its HMAC is over those bytes).
 *
 * Decoding only, not the schema check: the engine host checked the event where it made it, before
 * the pod published it (engine-pod/src/engine-host.ts, `emit`), and only the session's own pod may
 * publish on its subjects. What is left to guard against is a message that is no envelope at
 * all, which the readers skip rather than crash on, and a body naming another session than its
 * subject, which readers drop through ForgedEventGuard (forged-events.ts).
 */
export function parseEvent(data: Uint8Array): PublishedEvent | null {
  const json = Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8');
  try {
    const envelope = JSON.parse(json) as PublishedEvent['envelope'] | null;
    const valid = typeof envelope?.id === 'string' && typeof envelope.session === 'string' && typeof envelope.event === 'string';
    return valid ? { envelope, json } : null;
  } catch {
    return null;
  }
}

/**
 * Events the live feed's consumer may have on their way at once. One ordered consumer carries
 * every session's events, so this window, over the time a pull request takes to be answered, is
 * the feed's whole throughput: the client's default (100, asked for again 25 at a time) capped it
 * at a few hundred events a second once the replica's event loop was busy (a thousand sessions:
 * /ws 15 s behind, and falling further), pulls of 250 at a time keep a thousand events a second
 * a small fraction of the window. The bus takes each event as it comes: nothing waits in memory.
 */
export const LIVE_FEED_WINDOW = 1_000;

/**
 * How long one pull of the live feed waits on the server. The feed's consumer is ephemeral, with
 * one copy, on one NATS server: when that server goes (its pod deleted, its volume lost), the
 * client notices only when two of the pull's idle heartbeats (half the pull's wait each) fail to
 * come, then makes the consumer again where the feed left off. With the client's default 30-s
 * pulls /ws stayed silent some 45 s (test/e2e-node chaos, `nats-volume`); with 5-s pulls, about 7 s
 * (gateway/test/cluster/live-feed-nats-loss.test.ts). An idle replica asks once per 5 s.
 */
const LIVE_FEED_PULL_MS = 5_000;

/**
 * Every replica's live view of the events, for `/ws`: an ordered consumer from the end of the
 * stream feeds the replica's in-process bus, which its WsHub subscribes to. Nothing is acked
 * and nothing is replayed: a websocket client sees the events published while it is connected.
 */
export class LiveEventFeed {
  private constructor(private readonly messages: ConsumerMessages) {}

  /** Resolves once the consumer exists: every event published after that reaches the bus. */
  static async start(options: { nc: NatsConnection; bus: EventBus; log: Logger; guard: ForgedEventGuard }): Promise<LiveEventFeed> {
    await ensureGatewayStreams(options.nc);
    const consumer = await options.nc.jetstream().consumers.get(STREAMS.events, { deliver_policy: DeliverPolicy.New });
    const messages = await consumer.consume({
      max_messages: LIVE_FEED_WINDOW,
      expires: LIVE_FEED_PULL_MS,
      callback: (msg) => {
        const event = options.guard.read(msg.subject, msg.data, 'live-feed');
        if (event === 'invalid') options.log.warn({ subject: msg.subject }, 'message on the events stream is not an event envelope; skipped');
        else if (event !== 'forged') options.bus.publish(event);
      },
    });
    return new LiveEventFeed(messages);
  }

  async stop(): Promise<void> {
    await this.messages.close();
  }
}
