import { eventMatchesSubject, eventSubjectSession } from '@switchboard/protocol';
import type { Logger } from 'pino';
import type { PublishedEvent } from '../events/event-bus.js';
import { parseEvent } from './event-source.js';

/** Where a reader of the events stream found an event: each counts its drops apart. */
export type EventReader = 'live-feed' | 'webhook-queue' | 'event-log';

/** Counts events dropped because their subject and body name different sessions. */
export interface ForgedEventCounter {
  forgedEventDropped(subjectSession: string, reader: EventReader): void;
}

/**
 * The check every reader of the events stream makes before it trusts an event: NATS permissions
 * tie an engine pod to its own session's subjects, never to what it writes in the body, so an
 * event whose body names another session than its subject is a pod speaking for another session.
 * It is dropped, counted, and logged with the subject and the session claimed (never the payload,
 * which may carry a stranger's message).
 */
export class ForgedEventGuard {
  constructor(
    private readonly counter: ForgedEventCounter,
    private readonly log: Logger,
  ) {}

  /** The event, 'invalid' when the message is no envelope, 'forged' when it was dropped here. */
  read(subject: string, data: Uint8Array, reader: EventReader): PublishedEvent | 'invalid' | 'forged' {
    const event = parseEvent(data);
    if (!event) return 'invalid';
    const claimed = event.envelope.session;
    if (eventMatchesSubject(subject, claimed)) return event;
    this.counter.forgedEventDropped(eventSubjectSession(subject) ?? '', reader);
    this.log.warn({ subject, claimedSession: claimed, reader }, "event's session differs from its subject's; dropped");
    return 'forged';
  }
}
