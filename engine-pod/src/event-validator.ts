import { EVENT_ENVELOPES, type EventEnvelope, type EventName } from '@switchboard/protocol';
import type { z } from 'zod';

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

/** The envelope members a host puts in every event it makes, the same objects each time. */
const SHARED_MEMBERS = ['metadata', 'me', 'environment'] as const;
type SharedMember = (typeof SHARED_MEMBERS)[number];

/**
 * Frozen objects (all the way down) already found to match their member's schema: they cannot
 * have changed since, so they match still. Weak: a host's replaced metadata is not kept.
 */
const matchingShared: Record<SharedMember, WeakSet<object>> = { metadata: new WeakSet(), me: new WeakSet(), environment: new WeakSet() };

/** Each event's envelope schema without the shared members, made from the protocol's on first use. */
const ownMembers = new Map<EventName, z.ZodType>();

function ownMembersSchema(name: EventName): z.ZodType {
  let schema = ownMembers.get(name);
  if (!schema) {
    schema = (EVENT_ENVELOPES[name] as z.ZodObject).omit({ metadata: true, me: true, environment: true });
    ownMembers.set(name, schema);
  }
  return schema;
}

const isObject = (value: unknown): value is object => typeof value === 'object' && value !== null;

function deeplyFrozen(value: object): boolean {
  return Object.isFrozen(value) && Object.values(value).every((member) => !isObject(member) || deeplyFrozen(member));
}

function sharedMembersMatch(envelope: EventEnvelope, name: EventName): boolean {
  const shape = (EVENT_ENVELOPES[name] as z.ZodObject).shape as Record<SharedMember, z.ZodType>;
  for (const member of SHARED_MEMBERS) {
    const value: unknown = envelope[member];
    if (isObject(value) && matchingShared[member].has(value)) continue;
    if (!shape[member].safeParse(value).success) return false;
    if (isObject(value) && deeplyFrozen(value)) matchingShared[member].add(value);
  }
  return true;
}

/**
 * Why an envelope does not match its spec 6.2 schema (the envelope of spec 2.4 with `event` one
 * of the names and `payload` that event's payload); null when it does. Engines map what their
 * messaging service says, and one that gets it wrong would otherwise hand every webhook, websocket
 * client and history reader a payload their generated types do not describe.
 *
 * The schemas are built once (protocol EVENT_ENVELOPES); a check parses the envelope object the
 * engine host made, never its JSON. The members a host shares between its events (metadata, me,
 * environment) are checked once per object when it hands them frozen (the host does), the rest of
 * every envelope each time: the same verdict as the whole envelope's schema, for less work per
 * event (sendText's checks went from 9.1 % to 6.3 % of its profile; docs/performance.md). A
 * mismatch is reported as the whole schema finds it.
 */
export function eventIssues(envelope: EventEnvelope): EventIssue[] | null {
  const name: unknown = envelope.event;
  if (!isEventName(name)) return [{ path: 'event', message: `unknown event name ${JSON.stringify(name)}` }];
  if (ownMembersSchema(name).safeParse(envelope).success && sharedMembersMatch(envelope, name)) return null;
  const result = EVENT_ENVELOPES[name].safeParse(envelope);
  if (result.success) return null;
  return result.error.issues.map((issue) => ({ path: issue.path.map(String).join('.') || '(envelope)', message: issue.message }));
}
