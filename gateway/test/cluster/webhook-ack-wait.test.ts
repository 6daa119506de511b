import type { WebhookConfig } from '@switchboard/protocol';
import { STREAMS } from '@switchboard/protocol';
import { productNatsServer, waitFor } from '@switchboard/testkit';
import type { ConsumerInfo, JetStreamManager } from 'nats';
import { describe, expect, it } from 'vitest';
import { makeEvent } from '../webhooks/support.js';
import { captureLog, natsPerTest, publishEvent } from './nats-support.js';

/** The webhook queue of session alpha (its consumer filters on alpha's events). */
async function alphaQueue(jsm: JetStreamManager): Promise<ConsumerInfo | undefined> {
  const consumers = await jsm.consumers.list(STREAMS.events).next();
  return consumers.find((info) => info.config.filter_subject?.startsWith('sb.evt.alpha.'));
}

const ACK_WAIT_2S = 2_000_000_000;

describe('a webhook queue made with another ack wait (an earlier version made them with 30 s)', () => {
  const shipped = natsPerTest({ binary: productNatsServer() });
  const debian = natsPerTest();

  for (const [server, { connection, engine, replica, receiver }] of [
    ['the nats-server the product ships', shipped],
    ['the NATS of an older release (Debian’s 2.9, which refuses the change)', debian],
  ] as const) {
    it(`is given the replica's ack wait where the server allows it, and delivers either way: ${server}`, async () => {
      const rx = await receiver();
      const hook: WebhookConfig = { url: rx.url, events: ['*'] };
      const old = await replica({ webhooks: [hook], ackWaitMs: 30_000 });
      const publisher = await engine();
      await publishEvent(publisher, makeEvent('alpha', 0));
      const jsm = await (await connection()).jetstreamManager();
      // Delivered and acked: the old replica leaves nothing in flight. Then it goes, as an upgraded
      // release's old pods do (its connection with it, so no pull of its own waits on the server).
      await waitFor(async () => ((await alphaQueue(jsm))?.ack_floor.stream_seq ?? 0) >= 1, 'the first event delivered and acked');
      await old.kill();

      const { log, lines } = captureLog();
      await replica({ webhooks: [hook], ackWaitMs: 2_000, log });
      await publishEvent(publisher, makeEvent('alpha', 1));
      await waitFor(() => rx.accepted.length === 2, 'the next event delivered by the new replica');
      const refused = lines.some((line) => line.includes('keeps the ack wait it was made with'));
      if (server === 'the nats-server the product ships') {
        expect(refused).toBe(false);
        expect((await alphaQueue(jsm))?.config.ack_wait).toBe(ACK_WAIT_2S);
      } else {
        expect(refused).toBe(true);
        expect((await alphaQueue(jsm))?.config.ack_wait).toBe(30_000_000_000);
      }
    });
  }
});
