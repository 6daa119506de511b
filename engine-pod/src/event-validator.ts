import { EVENT_ENVELOPES, type EventEnvelope, type EventName } from '@switchboard/protocol';

/** One way an event differs from its schema: where, and what is wrong. */
export interface EventIssue {
  readonly path: string;
  readonly message: string;
}

/** An event the host dropped because it does not match its protocol schema. */
export interface InvalidEvent {
  readonly id: string;
  readonly session: string;
  readonly event: string;
  readonly issues: readonly EventIssue[];
}

const isEventName = (name: unknown): name is EventName => typeof name === 'string' && Object.hasOwn(EVENT_ENVELOPES, name);

/**
 * Why an envelope does not match its spec 6.2 schema (the envelope of spec 2.4 with `event` one
 * of the names and `payload` that event's payload); null when it does. Engines map what their
 * messaging service says, and one that gets it wrong would otherwise hand every webhook, websocket
 * client and history reader a payload their generated types do not describe.
 *
 * The schemas are built once (protocol EVENT_ENVELOPES); a check parses the envelope object the
 * engine host made, never its JSON.
 */
export function eventIssues(envelope: EventEnvelope): EventIssue[] | null {
  const name: unknown = envelope.event;
  if (!isEventName(name)) return [{ path: 'event', message: `unknown event name ${JSON.stringify(name)}` }];
  const result = EVENT_ENVELOPES[name].safeParse(envelope);
  if (result.success) return null;
  return result.error.issues.map((issue) => ({ path: issue.path.map(String).join('.') || '(envelope)', message: issue.message }));
}
