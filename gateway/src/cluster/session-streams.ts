import { dropSessionStores } from '@switchboard/kube';
import { STREAMS, SUBJECTS } from '@switchboard/protocol';
import type { NatsConnection } from 'nats';
import { DEAD_LETTERS } from './event-source.js';
import { QUEUE_CONSUMER_PREFIX } from './webhook-targets.js';

/**
 * Drops what a deleted session leaves in JetStream, so that a session made again with its name
 * starts clean (docs/events.md): its webhook queues (durable consumers), its events in SB_EVENTS
 * (the event log, and every queue's backlog), its dead letters, and its own media and command
 * buckets (files and pending large commands). The queues go first, so none
 * hands out an event between the purge and its own deletion. Call it once the resource is gone,
 * its engine pod with it, and this replica's queues of the session are stopped.
 */
export async function dropSessionStreams(nc: NatsConnection, session: string): Promise<void> {
  const jsm = await nc.jetstreamManager();
  const subject = SUBJECTS.sessionEvents(session);
  const queues: string[] = [];
  for await (const info of jsm.consumers.list(STREAMS.events)) {
    // The filter names the session exactly; the name's prefix alone would also match `<session>_x`.
    if (info.name.startsWith(QUEUE_CONSUMER_PREFIX) && info.config.filter_subject === subject) queues.push(info.name);
  }
  for (const name of queues) await jsm.consumers.delete(STREAMS.events, name).catch(() => undefined);
  await jsm.streams.purge(STREAMS.events, { filter: subject });
  await jsm.streams.purge(DEAD_LETTERS.stream, { filter: DEAD_LETTERS.subject(session) });
  await dropSessionStores(nc, session);
}
