import { EVENT_NAMES } from '@switchboard/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventTap, MESSAGE_ID } from './event-tap.js';
import { startGateway, type ContractGateway } from './harness.js';

/*
 * Spec 6.2 end to end: every event, made by a SANDBOX simulation (docs/sandbox.md), reaches a
 * webhook receiver (HMAC checked) and a websocket client, parses against its protocol schema and
 * carries the fields of the spec's table.
 */

const ALICE = '15551230001@c.us';
const BOB = '15551230002@c.us';
const MEMBER = '15557770001@c.us';
const LID_MEMBER = '245120000000099@lid';

let gw: ContractGateway;
let tap: EventTap;
/** The incoming text from ALICE and the text sent to her, which later simulations act on. */
let incoming: any;
let sent: any;

beforeAll(async () => {
  gw = await startGateway();
  tap = await EventTap.open(gw, 'events-all');
  const message = await tap.simulate({ kind: 'message', from: ALICE, body: 'hello' });
  incoming = (await tap.delivered('message.any', (p) => p.id === message.id)).payload;
  sent = (await gw.api('POST', '/api/sendText', { session: 'events-all', chatId: ALICE, text: 'hi Alice' })).body;
  await tap.delivered('message.any', (p) => p.id === sent.id);
});
afterAll(async () => {
  await tap.close();
  await gw.close();
});

describe('6.2 session.status', () => {
  it('carries status and the recent statuses', async () => {
    const working = (await tap.delivered('session.status', (p) => p.status === 'WORKING')).payload;
    expect(working.statuses.map((s: { status: string }) => s.status)).toEqual(['STARTING', 'SCAN_QR_CODE', 'WORKING']);
    for (const point of working.statuses) expect(Number.isInteger(point.timestamp)).toBe(true);
  });
});

describe('6.2 message and message.any', () => {
  it('an incoming message is a message record (2.5), source app, in both events', async () => {
    const message = (await tap.delivered('message', (p) => p.id === incoming.id)).payload;
    expect(message).toEqual(incoming);
    expect(message).toMatchObject({ from: ALICE, to: tap.me, fromMe: false, source: 'app', body: 'hello', hasMedia: false, media: null });
    expect(message.id).toMatch(MESSAGE_ID);
  });

  it('a message sent through the API is message.any with source api', async () => {
    const any = (await tap.delivered('message.any', (p) => p.id === sent.id)).payload;
    expect(any).toMatchObject({ from: tap.me, to: ALICE, fromMe: true, source: 'api', body: 'hi Alice' });
  });
});

describe('6.2 message.reaction', () => {
  it('names the reaction message, its ends, and the emoji on the message reacted to', async () => {
    const { id } = await tap.simulate({ kind: 'reaction', messageId: sent.id, text: '👍' });
    const reaction = (await tap.delivered('message.reaction', (p) => p.id === id)).payload;
    expect(reaction).toEqual({
      id,
      from: ALICE,
      fromMe: false,
      participant: null,
      to: tap.me,
      timestamp: expect.any(Number),
      source: 'app',
      reaction: { text: '👍', messageId: sent.id },
    });
    expect(id).toMatch(new RegExp(`^false_${ALICE}_`));
  });

  it('a removed reaction has empty text; your own reaction is fromMe', async () => {
    const { id } = await tap.simulate({ kind: 'reaction', messageId: incoming.id, text: '', fromMe: true });
    const reaction = (await tap.delivered('message.reaction', (p) => p.id === id)).payload;
    expect(reaction).toMatchObject({ from: tap.me, to: ALICE, fromMe: true, reaction: { text: '', messageId: incoming.id } });
  });
});

describe('6.2 message.ack', () => {
  it('has id, from, participant null in a direct chat, fromMe, ack and ackName', async () => {
    await tap.simulate({ kind: 'ack', messageId: sent.id, ack: 'READ' });
    const ack = (await tap.delivered('message.ack', (p) => p.id === sent.id && p.ack === 3)).payload;
    expect(ack).toMatchObject({ id: sent.id, from: ALICE, participant: null, fromMe: true, ack: 3, ackName: 'READ' });
  });

  it('group variant: id ends with _<participant>, from is the group, participant is set', async () => {
    const { id: group } = await tap.simulate({ kind: 'group-join', participants: [LID_MEMBER] });
    const mine = (await gw.api('POST', '/api/sendText', { session: 'events-all', chatId: group, text: 'hi all' })).body;
    await tap.delivered('message.any', (p) => p.id === mine.id);
    const { id } = await tap.simulate({ kind: 'ack', messageId: mine.id, ack: 'PLAYED', participant: LID_MEMBER });
    const ack = (await tap.delivered('message.ack', (p) => p.id === id)).payload;
    expect(id).toBe(`${mine.id}_${LID_MEMBER}`);
    expect(ack).toMatchObject({ from: group, participant: LID_MEMBER, fromMe: true, ack: 4, ackName: 'PLAYED' });
    // The peer product's name for it, to the filters that name it (webhook and /ws alike).
    expect((await tap.delivered('message.ack.group', (p) => p.id === id)).payload).toEqual(ack);
  });

  it('message.ack.group is only for group acknowledgements', () => {
    const direct = tap.ws.frames.filter((f) => f.event === 'message.ack.group' && f.payload.participant === null);
    expect(direct).toEqual([]);
  });
});

describe('6.2 message.waiting', () => {
  it('is a message record from the chat, still without its text', async () => {
    const { id } = await tap.simulate({ kind: 'waiting', from: BOB });
    const waiting = (await tap.delivered('message.waiting', (p) => p.id === id)).payload;
    expect(waiting).toMatchObject({ from: BOB, to: tap.me, fromMe: false, body: '', hasMedia: false });
    expect(id).toMatch(MESSAGE_ID);
  });
});

describe('6.2 message.edited and message.revoked', () => {
  it('an edit has its own id, the edited message id without chat id, and the new body', async () => {
    const { id } = await tap.simulate({ kind: 'edit', messageId: incoming.id, body: 'hello (edited)' });
    const edited = (await tap.delivered('message.edited', (p) => p.id === id)).payload;
    const shortId = incoming.id.split('_')[2];
    expect(id).toMatch(new RegExp(`^false_${ALICE}_[0-9A-Za-z]+$`));
    expect(id).not.toBe(incoming.id);
    expect(edited).toMatchObject({ editedMessageId: shortId, body: 'hello (edited)', from: ALICE, fromMe: false, _data: expect.any(Object) });
  });

  it('a revoke has after (the revoke action), revokedMessageId without chat id, and before', async () => {
    const received = await tap.simulate({ kind: 'message', from: BOB, body: 'oops' });
    await tap.delivered('message.any', (p) => p.id === received.id);
    const { id } = await tap.simulate({ kind: 'revoke', messageId: received.id });
    const revoked = (await tap.delivered('message.revoked', (p) => p.after.id === id)).payload;
    expect(revoked.revokedMessageId).toBe(received.id.split('_')[2]);
    expect(revoked.after).toMatchObject({ id, from: BOB, _data: expect.any(Object) });
    expect(revoked.before).toMatchObject({ id: received.id, body: 'oops' });
    // Revoked: the session no longer knows it.
    const again = await gw.api('POST', '/api/events-all/sandbox/simulate', { kind: 'reaction', messageId: received.id, text: '👍' });
    expect(again.status).toBe(404);
  });
});

describe('6.2 group messages, their edits and revocations carry the participant (spec 2.5 id format)', () => {
  const GROUP = '120363000000000777@g.us';

  it('a group message names its sender in participant and at the end of its id; edit and revoke do too', async () => {
    const received = await tap.simulate({ kind: 'message', from: GROUP, participant: LID_MEMBER, body: 'hi group' });
    expect(received.id).toMatch(new RegExp(`^false_${GROUP}_[0-9A-Za-z]+_${LID_MEMBER}$`));
    const message = (await tap.delivered('message', (p) => p.id === received.id)).payload;
    expect(message).toMatchObject({ from: GROUP, to: tap.me, fromMe: false, participant: LID_MEMBER, body: 'hi group' });
    expect(message.id).toMatch(MESSAGE_ID);

    const edit = await tap.simulate({ kind: 'edit', messageId: received.id, body: 'hi group (edited)' });
    expect(edit.id).toMatch(new RegExp(`^false_${GROUP}_[0-9A-Za-z]+_${LID_MEMBER}$`));
    const edited = (await tap.delivered('message.edited', (p) => p.id === edit.id)).payload;
    expect(edited).toMatchObject({ from: GROUP, participant: LID_MEMBER, editedMessageId: received.id.split('_')[2] });

    const revoke = await tap.simulate({ kind: 'revoke', messageId: received.id });
    expect(revoke.id).toMatch(new RegExp(`^false_${GROUP}_[0-9A-Za-z]+_${LID_MEMBER}$`));
    const revoked = (await tap.delivered('message.revoked', (p) => p.after.id === revoke.id)).payload;
    expect(revoked.after).toMatchObject({ from: GROUP, participant: LID_MEMBER });
    expect(revoked.before).toMatchObject({ id: received.id, participant: LID_MEMBER });
  });

  it('a group message without participant comes from the default member; a direct one has none', async () => {
    const group = await tap.simulate({ kind: 'message', from: GROUP, body: 'default member' });
    expect(group.id).toMatch(new RegExp(`_${MEMBER}$`));
    expect((await tap.delivered('message', (p) => p.id === group.id)).payload.participant).toBe(MEMBER);
    const direct = await tap.simulate({ kind: 'message', from: ALICE, participant: MEMBER, body: 'direct' });
    expect(direct.id).toMatch(new RegExp(`^false_${ALICE}_[0-9A-Za-z]+$`));
    expect((await tap.delivered('message', (p) => p.id === direct.id)).payload.participant).toBeNull();
  });
});

describe('6.2 chat.archive', () => {
  it('has the chat id, timestamp and archived', async () => {
    await tap.simulate({ kind: 'archive', chatId: ALICE });
    await tap.simulate({ kind: 'archive', chatId: ALICE, archived: false });
    expect((await tap.delivered('chat.archive', (p) => p.archived)).payload).toEqual({ id: ALICE, timestamp: expect.any(Number), archived: true });
    expect((await tap.delivered('chat.archive', (p) => !p.archived)).payload).toMatchObject({ id: ALICE, archived: false });
  });
});

describe('6.2 group.v2.* and the deprecated group.join and group.leave', () => {
  let group: string;
  beforeAll(async () => {
    ({ id: group } = await tap.simulate({ kind: 'group-join', subject: 'Team', participants: [BOB], by: MEMBER }));
  });

  it('group.v2.join carries the whole group (2.8), timestamp and _data', async () => {
    const join = (await tap.delivered('group.v2.join', (p) => p.group.id === group)).payload;
    expect(group).toMatch(/^120363\d{12}@g\.us$/);
    expect(join.group).toMatchObject({
      id: group,
      subject: 'Team',
      description: '',
      membersCanAddNewMember: false,
      membersCanSendMessages: true,
      newMembersApprovalRequired: false,
    });
    expect(join.group.invite).toMatch(/^https:\/\/chat\.whatsapp\.com\/[0-9A-Za-z]{22}$/);
    expect(join.group.participants).toEqual([
      { id: MEMBER, role: 'superadmin' },
      { id: BOB, role: 'participant' },
      { id: tap.me, role: 'participant' },
    ]);
    expect(join).toMatchObject({ timestamp: expect.any(Number), _data: expect.any(Object) });
  });

  it('your own join also comes as group.v2.participants and the deprecated group.join', async () => {
    const participants = (await tap.delivered('group.v2.participants', (p) => p.group.id === group && p.type === 'join')).payload;
    expect(participants.participants).toEqual([{ id: tap.me, role: 'participant' }]);
    const deprecated = (await tap.delivered('group.join', (p) => p.chatId === group)).payload;
    expect(deprecated).toMatchObject({ type: 'add', recipientIds: [tap.me] });
  });

  it('group.v2.participants carries only the members that changed, with their new role', async () => {
    await tap.simulate({ kind: 'group-participants', groupId: group, type: 'join', participants: [ALICE] });
    await tap.simulate({ kind: 'group-participants', groupId: group, type: 'promote', participants: [ALICE] });
    await tap.simulate({ kind: 'group-participants', groupId: group, type: 'demote', participants: [ALICE] });
    await tap.simulate({ kind: 'group-participants', groupId: group, type: 'leave', participants: [BOB] });
    const of = async (type: string) =>
      (await tap.delivered('group.v2.participants', (p) => p.group.id === group && p.type === type && p.participants[0].id !== tap.me)).payload;
    expect((await of('join')).participants).toEqual([{ id: ALICE, role: 'participant' }]);
    expect((await of('promote')).participants).toEqual([{ id: ALICE, role: 'admin' }]);
    expect((await of('demote')).participants).toEqual([{ id: ALICE, role: 'participant' }]);
    expect((await of('leave')).participants).toEqual([{ id: BOB, role: 'left' }]);
    expect((await tap.delivered('group.leave', (p) => p.chatId === group)).payload.recipientIds).toEqual([BOB]);
  });

  it('group.v2.update carries the id and only what changed', async () => {
    await tap.simulate({ kind: 'group-update', groupId: group, subject: 'Team 2', membersCanSendMessages: false });
    const update = (await tap.delivered('group.v2.update', (p) => p.group.id === group)).payload;
    expect(update.group).toEqual({ id: group, subject: 'Team 2', membersCanSendMessages: false });
    expect(update).toMatchObject({ timestamp: expect.any(Number), _data: expect.any(Object) });
  });

  it('group.v2.leave carries only the group id', async () => {
    await tap.simulate({ kind: 'group-leave', groupId: group, removed: true });
    const leave = (await tap.delivered('group.v2.leave', (p) => p.group.id === group)).payload;
    expect(leave.group).toEqual({ id: group });
    expect(leave).toMatchObject({ timestamp: expect.any(Number), _data: expect.any(Object) });
    const own = await tap.delivered('group.v2.participants', (p) => p.group.id === group && p.type === 'leave' && p.participants[0].id === tap.me);
    expect(own.payload.participants).toEqual([{ id: tap.me, role: 'left' }]);
  });
});

describe('6.2 presence.update', () => {
  it('a direct chat has one participant: the chat', async () => {
    await tap.simulate({ kind: 'presence', chatId: BOB, presence: 'typing' });
    const presence = (await tap.delivered('presence.update', (p) => p.id === BOB)).payload;
    expect(presence).toEqual({ id: BOB, presences: [{ participant: BOB, lastKnownPresence: 'typing', lastSeen: null }] });
  });

  it('a group names the member; lastSeen may be set', async () => {
    await tap.simulate({
      kind: 'presence',
      chatId: '120363000000000001@g.us',
      presence: 'offline',
      participant: LID_MEMBER,
      lastSeen: 1_795_000_000,
    });
    const presence = (await tap.delivered('presence.update', (p) => p.id === '120363000000000001@g.us')).payload;
    expect(presence.presences).toEqual([{ participant: LID_MEMBER, lastKnownPresence: 'offline', lastSeen: 1_795_000_000 }]);
  });
});

describe('6.2 poll.vote and poll.vote.failed', () => {
  const poll = 'true_15551230001@c.us_3EB0POLL0000000000000001';

  it('poll.vote has the vote and the poll it is on', async () => {
    const { id } = await tap.simulate({ kind: 'poll-vote', pollId: poll, selectedOptions: ['Yes'] });
    const vote = (await tap.delivered('poll.vote', (p) => p.vote.id === id)).payload;
    expect(vote).toEqual({
      vote: { id, to: tap.me, from: ALICE, fromMe: false, selectedOptions: ['Yes'], timestamp: expect.any(Number) },
      poll: { id: poll, to: ALICE, from: tap.me, fromMe: true },
    });
  });

  it('poll.vote.failed has the same shape with no options', async () => {
    const { id } = await tap.simulate({ kind: 'poll-vote', pollId: poll, selectedOptions: ['Yes'], failed: true });
    const vote = (await tap.delivered('poll.vote.failed', (p) => p.vote.id === id)).payload;
    expect(vote.vote.selectedOptions).toEqual([]);
    expect(vote.poll.id).toBe(poll);
  });
});

describe('6.2 event.response and event.response.failed', () => {
  const event = 'true_120363000000000002@g.us_3EB0EVENT000000000000001';

  it('event.response is message-like plus eventCreationKey and eventResponse', async () => {
    const { id } = await tap.simulate({ kind: 'event-response', eventId: event, response: 'MAYBE', extraGuestCount: 1, participant: BOB });
    const response = (await tap.delivered('event.response', (p) => p.id === id)).payload;
    expect(id).toMatch(/^false_120363000000000002@g\.us_[0-9A-Za-z]+_15551230002@c\.us$/);
    expect(response).toMatchObject({
      from: '120363000000000002@g.us',
      fromMe: false,
      participant: BOB,
      source: 'app',
      ackName: expect.any(String),
      replyTo: null,
      _data: expect.any(Object),
      eventCreationKey: { id: event, to: '120363000000000002@g.us', from: tap.me, fromMe: true },
      eventResponse: { response: 'MAYBE', timestampMs: expect.any(Number), extraGuestCount: 1 },
    });
  });

  it('event.response.failed has eventResponse null', async () => {
    const { id } = await tap.simulate({ kind: 'event-response', eventId: event, failed: true });
    const response = (await tap.delivered('event.response.failed', (p) => p.id === id)).payload;
    expect(response.eventResponse).toBeNull();
    expect(response.eventCreationKey.id).toBe(event);
  });
});

describe('6.2 label.*', () => {
  it('label.upsert is the label record (2.9); label.deleted has an empty name', async () => {
    const { label } = await tap.simulate({ kind: 'label', name: 'Lead', color: 1 });
    expect((await tap.delivered('label.upsert', (p) => p.id === label.id)).payload).toEqual({
      id: label.id,
      name: 'Lead',
      color: 1,
      colorHex: '#64c4ff',
    });
    await tap.simulate({ kind: 'label-chat', labelId: label.id, chatId: ALICE });
    await tap.simulate({ kind: 'label-chat', labelId: label.id, chatId: ALICE, removed: true });
    const added = (await tap.delivered('label.chat.added', (p) => p.labelId === label.id)).payload;
    expect(added).toEqual({ labelId: label.id, chatId: ALICE, label: { id: label.id, name: 'Lead', color: 1, colorHex: '#64c4ff' } });
    expect((await tap.delivered('label.chat.deleted', (p) => p.labelId === label.id)).payload).toEqual(added);
    await tap.simulate({ kind: 'label', id: label.id, deleted: true });
    expect((await tap.delivered('label.deleted', (p) => p.id === label.id)).payload).toEqual({ ...label, name: '' });
  });

  it('label.chat.added carries label null for a label the session has not seen', async () => {
    await tap.simulate({ kind: 'label-chat', labelId: '777', chatId: BOB });
    expect((await tap.delivered('label.chat.added', (p) => p.labelId === '777')).payload).toEqual({ labelId: '777', chatId: BOB, label: null });
  });
});

describe('6.2 call.*', () => {
  it('call.received, then call.accepted with the same fields', async () => {
    const { id } = await tap.simulate({ kind: 'call', from: BOB, isVideo: true });
    const received = (await tap.delivered('call.received', (p) => p.id === id)).payload;
    expect(received).toEqual({ id, from: BOB, timestamp: expect.any(Number), isVideo: true, isGroup: false, _data: expect.any(Object) });
    expect(id).toMatch(/^[0-9A-F]{32}$/);
    await tap.simulate({ kind: 'call', status: 'accept', id });
    expect((await tap.delivered('call.accepted', (p) => p.id === id)).payload).toMatchObject({ id, from: BOB, isVideo: true, isGroup: false });
  });

  it('a group call rejected on another device: call.rejected', async () => {
    const { id } = await tap.simulate({ kind: 'call', from: BOB, groupId: '120363000000000003@g.us' });
    await tap.simulate({ kind: 'call', status: 'reject', id });
    expect((await tap.delivered('call.rejected', (p) => p.id === id)).payload).toMatchObject({ id, from: BOB, isGroup: true, isVideo: false });
  });
});

describe('6.2 engine.event and the deprecated state.change', () => {
  it('engine.event relays the engine event name and data', async () => {
    await tap.simulate({ kind: 'engine-event', event: 'connection.update', data: { connection: 'open' } });
    expect((await tap.delivered('engine.event', (p) => p.event === 'connection.update')).payload).toEqual({
      event: 'connection.update',
      data: { connection: 'open' },
    });
  });

  it('state.change carries the engine state and leaves the session status alone', async () => {
    await tap.simulate({ kind: 'engine-state', state: 'CONFLICT' });
    expect((await tap.delivered('state.change', (p) => p.state === 'CONFLICT')).payload).toEqual({ state: 'CONFLICT' });
    expect((await gw.api('GET', '/api/sessions/events-all')).body.status).toBe('WORKING');
  });
});

describe('6.2 every event', () => {
  it('reached the webhook and the websocket, every one of them', () => {
    const atWebhook = new Set(tap.hooks.map((h) => h.body.event));
    const atSocket = new Set(tap.ws.frames.map((f) => f.event));
    expect(EVENT_NAMES.filter((name) => !atWebhook.has(name))).toEqual([]);
    expect(EVENT_NAMES.filter((name) => !atSocket.has(name))).toEqual([]);
  });
});

describe('simulate answers what is wrong', () => {
  it('404 for a message, group, label or call the session does not know', async () => {
    const unknownMessage = `false_${ALICE}_NOSUCHMESSAGE`;
    for (const body of [
      { kind: 'reaction', messageId: unknownMessage, text: '👍' },
      { kind: 'edit', messageId: unknownMessage, body: 'x' },
      { kind: 'revoke', messageId: unknownMessage },
      { kind: 'ack', messageId: unknownMessage, ack: 'READ' },
      { kind: 'group-update', groupId: '120363000000009999@g.us', subject: 'x' },
      { kind: 'label', id: '999', deleted: true },
      { kind: 'call', status: 'accept', id: 'ABCDEF0123456789' },
    ]) {
      const res = await gw.api('POST', '/api/events-all/sandbox/simulate', body);
      expect([body.kind, res.status]).toEqual([body.kind, 404]);
    }
  });

  it('400 naming the field for a body that cannot be simulated', async () => {
    const offer = await gw.api('POST', '/api/events-all/sandbox/simulate', { kind: 'call' });
    expect(offer.status).toBe(400);
    expect(offer.body.details).toEqual([expect.objectContaining({ path: 'body.from' })]);
    const directVariant = await gw.api('POST', '/api/events-all/sandbox/simulate', {
      kind: 'ack',
      messageId: sent.id,
      ack: 'READ',
      participant: BOB,
    });
    expect(directVariant.status).toBe(400);
    expect(directVariant.body.details).toEqual([expect.objectContaining({ path: 'body.participant' })]);
    const badId = await gw.api('POST', '/api/events-all/sandbox/simulate', { kind: 'reaction', messageId: 'nope', text: '👍' });
    expect(badId.status).toBe(400);
    expect(badId.body.details[0].path).toBe('body.messageId');
  });
});
