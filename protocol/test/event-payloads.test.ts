import { describe, it, expect } from 'vitest';
import { z } from 'zod';
import * as protocol from '../src/index.js';
import { EVENT_NAMES, EVENT_PAYLOADS, envelopeSchema, parseEnvelope, type EventName } from '../src/index.js';
import * as group from '../src/group.js';
import * as label from '../src/label.js';
import * as presence from '../src/presence.js';
import * as ex from './event-payload-examples.js';

function accepts(event: EventName, payload: unknown): void {
  const result = EVENT_PAYLOADS[event].safeParse(payload);
  expect(result.error?.issues ?? []).toEqual([]);
  expect(result.success).toBe(true);
}

function rejects(event: EventName, payload: unknown): void {
  expect(EVENT_PAYLOADS[event].safeParse(payload).success).toBe(false);
}

describe('event payload table', () => {
  it('has a schema for every event name and no others', () => {
    for (const name of EVENT_NAMES) expect(EVENT_PAYLOADS[name], name).toBeInstanceOf(z.ZodType);
    expect(Object.keys(EVENT_PAYLOADS).sort()).toEqual([...EVENT_NAMES].sort());
  });

  it('gives every exported schema a component id used by no other schema', () => {
    const owners = new Map<string, unknown>();
    for (const module of [protocol, group, label, presence]) {
      for (const value of Object.values(module)) {
        const id = value instanceof z.ZodType ? z.globalRegistry.get(value)?.id : undefined;
        if (!id) continue;
        if (owners.has(id)) expect(owners.get(id), `component id ${id}`).toBe(value);
        owners.set(id, value);
      }
    }
    for (const name of EVENT_NAMES) {
      expect(z.globalRegistry.get(EVENT_PAYLOADS[name])?.id, name).toBeTruthy();
    }
  });

  it('turns every payload into JSON Schema', () => {
    for (const name of EVENT_NAMES) {
      expect(() => z.toJSONSchema(EVENT_PAYLOADS[name]), name).not.toThrow();
    }
  });
});

describe('session and message events', () => {
  it('accepts session.status and rejects an unknown status', () => {
    accepts('session.status', ex.sessionStatus());
    rejects('session.status', { ...ex.sessionStatus(), status: 'READY' });
  });

  it('accepts message, message.any and message.waiting as message records', () => {
    accepts('message', ex.messageRecord());
    accepts('message.any', ex.messageRecord({ fromMe: true, source: 'api', ack: 1, ackName: 'SERVER' }));
    accepts('message.waiting', ex.messageRecord({ body: '', _data: { type: 'ciphertext' } }));
    rejects('message', ex.without(ex.messageRecord(), 'body'));
    rejects('message.any', ex.messageRecord({ source: 'web' }));
    rejects('message.waiting', ex.messageRecord({ ackName: 'SEEN' }));
    // Whole seconds: typed clients of this interface parse the timestamp as an integer.
    rejects('message', ex.messageRecord({ timestamp: 1730000000.25 }));
  });

  it('accepts the group variant of message.ack and rejects a missing participant', () => {
    accepts('message.ack', ex.groupAck());
    accepts('message.ack', { ...ex.groupAck(), from: '15551234567@c.us', participant: null });
    rejects('message.ack', ex.without(ex.groupAck(), 'participant'));
    accepts('message.ack.group', ex.groupAck());
    rejects('message.ack', { ...ex.groupAck(), ack: 5 });
  });

  it('accepts message.reaction, including a removed reaction', () => {
    accepts('message.reaction', ex.reaction());
    const removed = ex.reaction();
    removed.reaction.text = '';
    accepts('message.reaction', removed);
    rejects('message.reaction', { ...ex.reaction(), reaction: { text: '👍' } });
    rejects('message.reaction', ex.without(ex.reaction(), 'fromMe'));
    rejects('message.reaction', ex.without(ex.reaction(), 'source'));
  });

  it('accepts message.edited with or without the further message fields', () => {
    accepts('message.edited', ex.edited());
    accepts('message.edited', { ...ex.messageRecord(), ...ex.edited() });
    rejects('message.edited', ex.without(ex.edited(), 'editedMessageId'));
    rejects('message.edited', ex.without(ex.edited(), '_data'));
    rejects('message.edited', { ...ex.edited(), ackName: 'SEEN' });
  });

  it('accepts message.revoked with before null or set', () => {
    accepts('message.revoked', ex.revoked());
    accepts('message.revoked', { ...ex.revoked(), before: ex.messageRecord() });
    rejects('message.revoked', ex.without(ex.revoked(), 'revokedMessageId'));
    rejects('message.revoked', ex.without(ex.revoked(), 'before'));
    rejects('message.revoked', { ...ex.revoked(), after: { _data: {} } });
  });
});

describe('chat.archive', () => {
  it('accepts archiving and unarchiving', () => {
    accepts('chat.archive', ex.chatArchive());
    accepts('chat.archive', { ...ex.chatArchive(), archived: false });
    rejects('chat.archive', ex.without(ex.chatArchive(), 'archived'));
  });
});

describe('group.v2 events', () => {
  it('accepts group.v2.join with the full group record', () => {
    accepts('group.v2.join', ex.groupJoin());
    accepts('group.v2.join', { ...ex.groupJoin(), group: ex.without(ex.groupInfo(), 'invite') });
    rejects('group.v2.join', { ...ex.groupJoin(), group: ex.without(ex.groupInfo(), 'subject') });
    const owner = { ...ex.groupInfo(), participants: [{ id: '15551234567@c.us', role: 'owner' }] };
    rejects('group.v2.join', { ...ex.groupJoin(), group: owner });
  });

  it('accepts group.v2.leave with only the group id', () => {
    accepts('group.v2.leave', ex.groupLeave());
    rejects('group.v2.leave', { ...ex.groupLeave(), group: {} });
    rejects('group.v2.leave', ex.without(ex.groupLeave(), '_data'));
  });

  it('accepts every group.v2.participants change type', () => {
    for (const type of ['join', 'leave', 'promote', 'demote']) {
      accepts('group.v2.participants', { ...ex.groupParticipants(), type });
    }
    const left = { type: 'leave', participants: [{ id: '207726512345678@lid', role: 'left' }] };
    accepts('group.v2.participants', { ...ex.groupParticipants(), ...left });
    rejects('group.v2.participants', { ...ex.groupParticipants(), type: 'kick' });
    rejects('group.v2.participants', ex.without(ex.groupParticipants(), 'participants'));
  });

  it('accepts group.v2.update with some or all group fields', () => {
    accepts('group.v2.update', ex.groupUpdate());
    accepts('group.v2.update', { ...ex.groupUpdate(), group: ex.groupInfo() });
    rejects('group.v2.update', { ...ex.groupUpdate(), group: { subject: 'No id' } });
    rejects('group.v2.update', ex.without(ex.groupUpdate(), 'timestamp'));
  });

  it('exports the group record pieces', () => {
    expect(group.GroupInfo.parse(ex.groupInfo()).participants).toHaveLength(2);
    expect(group.GroupParticipantRole.options).toEqual(['left', 'participant', 'admin', 'superadmin']);
    const update = { id: '120363041234567890@g.us', membersCanSendMessages: 'yes' };
    expect(group.GroupInfoUpdate.safeParse(update).success).toBe(false);
  });
});

describe('presence.update', () => {
  it('accepts a group and a direct chat', () => {
    accepts('presence.update', ex.presenceUpdate());
    accepts('presence.update', {
      id: '15551234567@c.us',
      presences: [{ participant: '15551234567@c.us', lastKnownPresence: 'online', lastSeen: null }],
    });
  });

  it('rejects an unknown presence and a missing lastSeen', () => {
    const wrong = ex.presenceUpdate();
    wrong.presences[0]!.lastKnownPresence = 'away';
    rejects('presence.update', wrong);
    const noLastSeen = { participant: '15551234567@c.us', lastKnownPresence: 'online' };
    rejects('presence.update', { id: '15551234567@c.us', presences: [noLastSeen] });
    expect(presence.PresenceStatus.options).toEqual(['online', 'offline', 'typing', 'recording', 'paused']);
  });
});

describe('poll votes', () => {
  it('accepts poll.vote and poll.vote.failed', () => {
    accepts('poll.vote', ex.pollVote());
    accepts('poll.vote.failed', ex.pollVoteFailed());
  });

  it('rejects a vote without options list, a failed vote with options, a poll without id', () => {
    rejects('poll.vote', { ...ex.pollVote(), vote: ex.without(ex.pollVote().vote, 'selectedOptions') });
    rejects('poll.vote.failed', ex.pollVote());
    const pollWithoutId = ex.without(ex.pollVote().poll, 'id');
    rejects('poll.vote.failed', { ...ex.pollVoteFailed(), poll: pollWithoutId });
  });
});

describe('event responses', () => {
  it('accepts event.response for every answer and event.response.failed with null', () => {
    for (const response of ['GOING', 'NOT_GOING', 'MAYBE']) {
      const payload = ex.eventResponse();
      const answer = { ...payload.eventResponse, response, extraGuestCount: 0 };
      accepts('event.response', { ...payload, eventResponse: answer });
    }
    accepts('event.response.failed', ex.eventResponseFailed());
  });

  it('rejects unknown answers, guest counts above 1 and a missing creation key', () => {
    const payload = ex.eventResponse();
    const answer = payload.eventResponse;
    rejects('event.response', { ...payload, eventResponse: { ...answer, response: 'UNKNOWN' } });
    rejects('event.response', { ...payload, eventResponse: { ...answer, extraGuestCount: 2 } });
    rejects('event.response', ex.without(payload, 'eventCreationKey'));
    rejects('event.response', { ...payload, eventResponse: null });
    rejects('event.response.failed', payload);
    rejects('event.response.failed', ex.without(ex.eventResponseFailed(), 'ackName'));
  });
});

describe('labels', () => {
  it('accepts label.upsert and label.deleted', () => {
    accepts('label.upsert', ex.label());
    accepts('label.deleted', ex.labelDeleted());
    expect(label.Label.parse(ex.label()).colorHex).toBe('#64c4ff');
  });

  it('rejects a colour without "#", a fractional colour and a deletion that keeps its name', () => {
    rejects('label.upsert', { ...ex.label(), colorHex: '64c4ff' });
    rejects('label.upsert', { ...ex.label(), color: 1.5 });
    rejects('label.deleted', ex.label());
  });

  it('accepts label.chat.added and label.chat.deleted, with the label null after pairing', () => {
    accepts('label.chat.added', ex.labelChat());
    accepts('label.chat.deleted', { ...ex.labelChat(), label: null });
    rejects('label.chat.added', ex.without(ex.labelChat(), 'label'));
    rejects('label.chat.deleted', ex.without(ex.labelChat(), 'chatId'));
  });
});

describe('calls', () => {
  it('accepts call.received, call.accepted and call.rejected', () => {
    accepts('call.received', ex.call());
    accepts('call.accepted', { ...ex.call(), isVideo: true });
    accepts('call.rejected', { ...ex.call(), from: '120363041234567890@g.us', isGroup: true });
  });

  it('rejects a call without isVideo or with a string isGroup', () => {
    rejects('call.received', ex.without(ex.call(), 'isVideo'));
    rejects('call.accepted', { ...ex.call(), isGroup: 'false' });
    rejects('call.rejected', ex.without(ex.call(), 'from'));
  });
});

describe('engine.event', () => {
  it('accepts an engine event and rejects one without a name', () => {
    accepts('engine.event', ex.engineEvent());
    rejects('engine.event', ex.without(ex.engineEvent(), 'event'));
    rejects('engine.event', { event: 'x', data: 'open' });
  });
});

describe('deprecated events', () => {
  it('accepts any object for group.join and group.leave, but not a bare value', () => {
    accepts('group.join', ex.legacyGroupJoin());
    accepts('group.leave', { ...ex.legacyGroupJoin(), type: 'remove' });
    rejects('group.join', 'joined');
    rejects('group.leave', ['120363041234567890@g.us']);
  });

  it('accepts state.change with extra engine members and rejects one without state', () => {
    const withExtra = { state: 'OPENING', attempt: 2 };
    expect(EVENT_PAYLOADS['state.change'].parse(withExtra)).toEqual(withExtra);
    accepts('state.change', ex.stateChange());
    rejects('state.change', {});
  });
});

describe('envelopes', () => {
  const cases: [EventName, unknown][] = [
    ['message', ex.messageRecord()],
    ['group.v2.participants', ex.groupParticipants()],
    ['presence.update', ex.presenceUpdate()],
    ['event.response.failed', ex.eventResponseFailed()],
  ];

  it.each(cases)('accepts a full %s envelope', (event, payload) => {
    const value = ex.envelope(event, payload);
    expect(envelopeSchema(event).safeParse(value).error?.issues ?? []).toEqual([]);
    expect(parseEnvelope(value).event).toBe(event);
  });

  it('rejects a payload of another event, a wrong event name and an upper-case event id', () => {
    const callAsPresence = ex.envelope('presence.update', ex.call());
    expect(envelopeSchema('presence.update').safeParse(callAsPresence).success).toBe(false);
    const anyAsMessage = ex.envelope('message.any', ex.messageRecord());
    expect(envelopeSchema('message').safeParse(anyAsMessage).success).toBe(false);
    const upper = { ...ex.envelope('call.received', ex.call()), id: 'evt_01JC6R8X3V9F7Q2M4N5P6S7T8W' };
    expect(envelopeSchema('call.received').safeParse(upper).success).toBe(false);
    expect(() => parseEnvelope(ex.envelope('label.deleted', ex.label()))).toThrow();
  });
});
