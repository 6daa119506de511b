import { STREAMS, SUBJECTS } from '@switchboard/protocol';
import type { NatsConnection } from 'nats';
import { decodeTime } from 'ulid';
import type { EventLog } from '../webhooks/ports.js';
import type { ForgedEventGuard } from './forged-events.js';
import { readSubject } from './stream-reader.js';

/** Engine pods and the NATS server may disagree on the time by this much. */
const CLOCK_SKEW_MS = 60_000;

/**
 * Cluster mode's event log: the SB_EVENTS stream itself (7 days), read by the session's subject.
 * An event id is a ULID, so it tells when the event was made: reading starts a little before
 * that moment instead of at the stream's first message, and skips the ids not after `since`.
 */
export class StreamEventLog implements EventLog {
  constructor(
    private readonly nc: NatsConnection,
    private readonly guard: ForgedEventGuard,
  ) {}

  async since(session: string, since: string | undefined, limit: number): Promise<string[]> {
    const startTime = since === undefined ? undefined : new Date(decodeTime(since.slice('evt_'.length).toUpperCase()) - CLOCK_SKEW_MS);
    const events: string[] = [];
    await readSubject(this.nc, STREAMS.events, SUBJECTS.sessionEvents(session), startTime, (msg) => {
      const event = this.guard.read(msg.subject, msg.data, 'event-log');
      if (typeof event === 'object' && (since === undefined || event.envelope.id > since)) events.push(event.json);
      return events.length < limit;
    });
    return events;
  }
}
