import { EVENT_ENVELOPES, type EventName } from '@switchboard/protocol';
import type { PublishedEvent } from './event-bus.js';

/** One way an event differs from its schema: where, and what is wrong. */
export interface EventIssue {
  readonly path: string;
  readonly message: string;
}

/** An event that was not delivered because it does not match its protocol schema. */
export interface InvalidEvent {
  /** As the envelope has them, when it has them at all. */
  readonly id: unknown;
  readonly session: unknown;
  readonly event: unknown;
  readonly issues: readonly EventIssue[];
}

export interface EventValidatorOptions {
  readonly log: { warn(obj: object, msg?: string): void };
  /** Told of every invalid event, once (the metrics count them). */
  readonly onInvalidEvent?: (invalid: InvalidEvent) => void;
}

const isEventName = (name: unknown): name is EventName => typeof name === 'string' && Object.hasOwn(EVENT_ENVELOPES, name);

/**
 * The gateway's promise that every event it delivers matches its spec 6.2 schema: the envelope of
 * spec 2.4 with `event` one of the names and `payload` that event's payload. Engines map what
 * their messaging service says; an engine that gets one wrong would otherwise hand every webhook
 * and websocket client a payload their generated types do not describe. Such an event is not
 * delivered: it is logged with its issues and counted, so the drift shows and can be fixed.
 *
 * The schemas are built once (protocol EVENT_ENVELOPES); a check parses the envelope object the
 * engine host made, never its JSON.
 */
export class EventValidator {
  private invalidCount = 0;

  constructor(private readonly options: EventValidatorOptions) {}

  /** Invalid events seen so far by `accepts`. */
  get invalid(): number {
    return this.invalidCount;
  }

  /** True when the event may be delivered; otherwise logs it, counts it and answers false. */
  accepts(event: PublishedEvent): boolean {
    const issues = this.issuesOf(event);
    if (issues === null) return true;
    const { id, session, event: name } = event.envelope as { id?: unknown; session?: unknown; event?: unknown };
    const invalid: InvalidEvent = { id, session, event: name, issues };
    this.invalidCount++;
    this.options.log.warn(
      { eventId: id, session, event: name, issues },
      'event does not match its protocol schema; not delivered',
    );
    this.options.onInvalidEvent?.(invalid);
    return false;
  }

  /** The same check without a report, for a second reader of an event another part reports. */
  isValid(event: PublishedEvent): boolean {
    return this.issuesOf(event) === null;
  }

  /** Null when the event matches its schema. */
  private issuesOf(event: PublishedEvent): EventIssue[] | null {
    const name = (event.envelope as { event?: unknown } | null)?.event;
    if (!isEventName(name)) return [{ path: 'event', message: `unknown event name ${JSON.stringify(name)}` }];
    const result = EVENT_ENVELOPES[name].safeParse(event.envelope);
    if (result.success) return null;
    return result.error.issues.map((issue) => ({ path: issue.path.map(String).join('.') || '(envelope)', message: issue.message }));
  }
}
