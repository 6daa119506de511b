import { AckPolicy, DeliverPolicy, type JsMsg, type NatsConnection, nanos } from 'nats';

/**
 * Reads a stream's messages on `subject`, oldest first (from `startTime` when given), until
 * `visit` returns false or none are left. A short-lived consumer of its own does the reading;
 * it tells at creation how many messages match, so an empty read costs no wait.
 */
export async function readSubject(
  nc: NatsConnection,
  stream: string,
  subject: string,
  startTime: Date | undefined,
  visit: (msg: JsMsg) => boolean,
): Promise<void> {
  const jsm = await nc.jetstreamManager();
  const info = await jsm.consumers.add(stream, {
    ack_policy: AckPolicy.None,
    filter_subject: subject,
    mem_storage: true,
    // Removed by the server too, should this process die before it deletes it.
    inactive_threshold: nanos(60_000),
    ...(startTime ? { deliver_policy: DeliverPolicy.StartTime, opt_start_time: startTime.toISOString() } : { deliver_policy: DeliverPolicy.All }),
  });
  try {
    const consumer = await nc.jetstream().consumers.get(stream, info.name);
    let left = info.num_pending;
    while (left > 0) {
      const batch = await consumer.fetch({ max_messages: Math.min(left, 256), expires: 5_000 });
      let got = 0;
      for await (const msg of batch) {
        got++;
        left = msg.info.pending;
        if (!visit(msg)) return;
      }
      // Messages can expire while we read: fewer than announced is the end, not a reason to wait.
      if (got === 0) return;
    }
  } finally {
    await jsm.consumers.delete(stream, info.name).catch(() => undefined);
  }
}
