import { afterEach, describe, expect, it } from 'vitest';
import { expectValidEnvelopes, tick, webjsSession } from './harness.js';
import { call, groupNotification, keyOf, ME, message, pollVote, reaction } from './library-shapes.js';

const sessions: ReturnType<typeof webjsSession>[] = [];
async function working() {
  const created = webjsSession();
  sessions.push(created);
  await created.working();
  return created;
}
afterEach(() => {
  for (const { events, dropped } of sessions.splice(0)) expectValidEnvelopes(events, dropped);
});

const ALICE = '15551234567@c.us';
const BOB = '15551112222@c.us';
const GROUP = '120363025246125888@g.us';

describe('WEBJS message and message.any (spec 2.5, 6.2)', () => {
  it('an incoming message is message and message.any, source app, with the spec 2.5 id', async () => {
    const s = await working();
    const incoming = message(s.client, { fromMe: false, chatId: ALICE, id: '3EB0A1B2C3', body: 'Hi there', ack: 1 });
    s.client.fire('message_create', incoming);
    s.client.fire('message', incoming);
    expect(s.order()).toEqual(['message', 'message.any']);
    const [any, received] = [s.payloads('message.any')[0]!, s.payloads('message')[0]!];
    expect(received).toEqual(any);
    expect(received).toMatchObject({
      id: `false_${ALICE}_3EB0A1B2C3`,
      timestamp: 1_795_265_504,
      from: ALICE,
      to: ME,
      fromMe: false,
      source: 'app',
      participant: null,
      body: 'Hi there',
      hasMedia: false,
      media: null,
      ack: 1,
      ackName: 'SERVER',
      vCards: [],
      replyTo: null,
    });
    expect(received._data).toMatchObject({ notifyName: 'Someone', type: 'chat' });
  });

  it('a group message names its sender as participant, in the id too', async () => {
    const s = await working();
    s.client.fire('message', message(s.client, { fromMe: false, chatId: GROUP, id: '3EB0G1', participant: BOB }));
    expect(s.payloads('message')[0]).toMatchObject({ id: `false_${GROUP}_3EB0G1_${BOB}`, from: GROUP, participant: BOB });
  });

  it('a reply carries the quoted message', async () => {
    const s = await working();
    const extra = { quotedStanzaID: '3EB0QUOTED', quotedParticipant: ALICE, quotedMsg: { type: 'chat', body: 'the question' } };
    s.client.fire('message', message(s.client, { fromMe: false, chatId: ALICE, id: '3EB0R1', extra }));
    expect(s.payloads('message')[0]!.replyTo).toMatchObject({ id: '3EB0QUOTED', participant: ALICE, body: 'the question', hasMedia: false });
  });

  it('sendText is message.any with source api, then message.ack SERVER and DEVICE, and no app copy', async () => {
    const s = await working();
    const record = await s.host.execute({
      op: 'send.text',
      args: { chatId: ALICE, text: 'Hello from Switchboard', linkPreview: false, reply_to: `false_${ALICE}_3EB0Q` },
    });
    await tick();
    expect(s.order()).toEqual(['message.any', 'message.ack', 'message.ack']);
    expect(s.payloads('message.any')[0]).toEqual(record);
    expect(record).toMatchObject({ id: `true_${ALICE}_3EB0API1`, from: ME, to: ALICE, fromMe: true, source: 'api' });
    expect(s.payloads('message.ack')).toEqual([
      { id: `true_${ALICE}_3EB0API1`, from: ALICE, to: ME, participant: null, fromMe: true, ack: 1, ackName: 'SERVER' },
      { id: `true_${ALICE}_3EB0API1`, from: ALICE, to: ME, participant: null, fromMe: true, ack: 2, ackName: 'DEVICE' },
    ]);
    expect(s.client.sendOptions[0]).toEqual({ linkPreview: false, sendSeen: false, quotedMessageId: `false_${ALICE}_3EB0Q` });
  });

  it('an own message sent on the phone during an API send is message.any with source app', async () => {
    const s = await working();
    s.client.sendResult = (chatId, text) => {
      s.client.fire('message_create', message(s.client, { fromMe: true, chatId: BOB, id: '3EB0PHONE', body: 'typed on the phone' }));
      return message(s.client, { fromMe: true, chatId, id: '3EB0API9', body: text, ack: 0 });
    };
    await s.host.execute({ op: 'send.text', args: { chatId: ALICE, text: 'from the API', linkPreview: true } });
    expect(s.payloads('message.any').map((p) => [p.id, p.source])).toEqual([
      [`true_${ALICE}_3EB0API9`, 'api'],
      [`true_${BOB}_3EB0PHONE`, 'app'],
    ]);
    // Later echoes of the API message change nothing.
    s.client.fire('message_create', message(s.client, { fromMe: true, chatId: ALICE, id: '3EB0API9' }));
    expect(s.named('message.any')).toHaveLength(2);
  });

  it('a message still being decrypted is message.waiting', async () => {
    const s = await working();
    s.client.fire('message_ciphertext', message(s.client, { fromMe: false, chatId: ALICE, id: '3EB0WAIT', body: '', type: 'ciphertext' }));
    expect(s.payloads('message.waiting')[0]).toMatchObject({ id: `false_${ALICE}_3EB0WAIT`, source: 'app' });
  });
});

describe('WEBJS message.ack, message.reaction, message.edited, message.revoked (spec 6.2)', () => {
  it('message.ack in a group: from is the group, participant and id name the sender', async () => {
    const s = await working();
    const own = message(s.client, { fromMe: true, chatId: GROUP, id: '3EB0GACK', participant: ME });
    s.client.fire('message_ack', own, 3);
    expect(s.payloads('message.ack')).toEqual([
      { id: `true_${GROUP}_3EB0GACK_${ME}`, from: GROUP, to: ME, participant: ME, fromMe: true, ack: 3, ackName: 'READ' },
    ]);
  });

  it('message.reaction, its removal an empty text', async () => {
    const s = await working();
    const parent = { fromMe: true, chatId: ALICE, id: '3EB0PARENT' };
    s.client.fire('message_reaction', reaction(s.client, { fromMe: false, chatId: ALICE, id: '3EB0REACT' }, parent, '👍', ALICE));
    s.client.fire('message_reaction', reaction(s.client, { fromMe: false, chatId: ALICE, id: '3EB0REACT2' }, parent, '', ALICE));
    expect(s.payloads('message.reaction')).toEqual([
      {
        id: `false_${ALICE}_3EB0REACT`,
        from: ALICE,
        to: ME,
        fromMe: false,
        participant: null,
        timestamp: 1_795_265_510,
        source: 'app',
        reaction: { text: '👍', messageId: `true_${ALICE}_3EB0PARENT` },
      },
      expect.objectContaining({ reaction: { text: '', messageId: `true_${ALICE}_3EB0PARENT` } }),
    ]);
  });

  it('message.edited: the edit action id, the edited message id and the new body', async () => {
    const s = await working();
    const edited = message(s.client, {
      fromMe: false,
      chatId: ALICE,
      id: '3EB0ORIG',
      body: 'new text',
      extra: { latestEditMsgKey: keyOf({ fromMe: false, chatId: ALICE, id: '3EB0EDIT' }), latestEditSenderTimestampMs: 1 },
    });
    s.client.fire('message_edit', edited, 'new text', 'old text');
    expect(s.payloads('message.edited')[0]).toMatchObject({
      id: `false_${ALICE}_3EB0EDIT`,
      editedMessageId: '3EB0ORIG',
      body: 'new text',
      from: ALICE,
    });
  });

  it('message.revoked: the revoked message id, and the message as it was when the library kept it', async () => {
    const s = await working();
    const revokeKey = keyOf({ fromMe: false, chatId: ALICE, id: '3EB0GONE' });
    const after = message(s.client, {
      fromMe: false,
      chatId: ALICE,
      id: '3EB0ACTION',
      body: '',
      type: 'revoked',
      extra: { protocolMessageKey: revokeKey },
    });
    const before = message(s.client, { fromMe: false, chatId: ALICE, id: '3EB0GONE', body: 'oops' });
    s.client.fire('message_revoke_everyone', after, before);
    s.client.fire('message_revoke_everyone', after, undefined);
    const [withBefore, withoutBefore] = s.payloads('message.revoked');
    expect(withBefore).toMatchObject({ revokedMessageId: '3EB0GONE', after: { id: `false_${ALICE}_3EB0ACTION` }, before: { body: 'oops' } });
    expect(withoutBefore!.before).toBeNull();
  });
});

describe('WEBJS group events (spec 2.8, 6.2)', () => {
  it('someone added: group.v2.participants join, and the deprecated group.join', async () => {
    const s = await working();
    s.client.fire('group_join', groupNotification(s.client, GROUP, 'add', [ALICE]));
    expect(s.order()).toEqual(['group.join', 'group.v2.participants']);
    expect(s.payloads('group.v2.participants')[0]).toMatchObject({
      type: 'join',
      group: { id: GROUP },
      participants: [{ id: ALICE, role: 'participant' }],
      timestamp: 1_795_265_530,
    });
    expect(s.payloads('group.join')[0]).toMatchObject({ chatId: GROUP, type: 'add', recipientIds: [ALICE], author: BOB });
  });

  it('you added: also group.v2.join with the whole group', async () => {
    const s = await working();
    s.client.fire('group_join', groupNotification(s.client, GROUP, 'add', [ME]));
    await tick();
    expect(s.payloads('group.v2.join')[0]).toMatchObject({
      group: {
        id: GROUP,
        subject: 'Switchboard testers',
        description: 'Where tests meet',
        membersCanAddNewMember: false,
        membersCanSendMessages: true,
        newMembersApprovalRequired: true,
        participants: [
          { id: BOB, role: 'superadmin' },
          { id: ME, role: 'participant' },
        ],
      },
      timestamp: 1_795_265_530,
    });
  });

  it('you removed: group.v2.participants leave with role left, group.v2.leave, group.leave', async () => {
    const s = await working();
    s.client.fire('group_leave', groupNotification(s.client, GROUP, 'remove', [ME]));
    expect(s.order()).toEqual(['group.leave', 'group.v2.participants', 'group.v2.leave']);
    expect(s.payloads('group.v2.participants')[0]).toMatchObject({ type: 'leave', participants: [{ id: ME, role: 'left' }] });
    expect(s.payloads('group.v2.leave')[0]).toMatchObject({ group: { id: GROUP }, timestamp: 1_795_265_530 });
  });

  it('promote and demote are group.v2.participants', async () => {
    const s = await working();
    s.client.fire('group_admin_changed', groupNotification(s.client, GROUP, 'promote', [ALICE]));
    s.client.fire('group_admin_changed', groupNotification(s.client, GROUP, 'demote', [ALICE]));
    expect(s.payloads('group.v2.participants').map((p) => [p.type, p.participants])).toEqual([
      ['promote', [{ id: ALICE, role: 'admin' }]],
      ['demote', [{ id: ALICE, role: 'participant' }]],
    ]);
  });

  it('a new subject is group.v2.update with the id and the subject', async () => {
    const s = await working();
    s.client.fire('group_update', groupNotification(s.client, GROUP, 'subject', [], { body: 'Renamed' }));
    s.client.fire('group_update', groupNotification(s.client, GROUP, 'picture', []));
    expect(s.payloads('group.v2.update').map((p) => p.group)).toEqual([{ id: GROUP, subject: 'Renamed' }, { id: GROUP }]);
  });
});

describe('WEBJS call.received, poll.vote, state.change, engine.event (spec 6.2)', () => {
  it('an incoming call is call.received; an outgoing one is not', async () => {
    const s = await working();
    s.client.fire('call', call(s.client, ALICE));
    s.client.fire('call', call(s.client, ALICE, true));
    expect(s.payloads('call.received')).toEqual([
      expect.objectContaining({ id: 'CALL5F1C0A2B9D', from: ALICE, timestamp: 1_795_265_520, isVideo: true, isGroup: false }),
    ]);
  });

  it('a vote is poll.vote with the chosen option names', async () => {
    const s = await working();
    const poll = { fromMe: true, chatId: ALICE, id: '3EB0POLL' };
    s.client.fire('vote_update', pollVote(s.client, ALICE, poll, ['Pizza', 'Salad'], [1]));
    expect(s.payloads('poll.vote')[0]).toEqual({
      vote: { id: `false_${ALICE}_3EB0POLL`, from: ALICE, to: ME, fromMe: false, selectedOptions: ['Salad'], timestamp: 1_795_265_540 },
      poll: { id: `true_${ALICE}_3EB0POLL`, from: ME, to: ALICE, fromMe: true },
    });
  });

  it('change_state is the deprecated state.change', async () => {
    const s = await working();
    s.client.fire('change_state', 'CONNECTED');
    expect(s.payloads('state.change')).toEqual([{ state: 'CONNECTED' }]);
  });

  it('every client event is also engine.event, its arguments by name, as plain JSON', async () => {
    const s = await working();
    const own = message(s.client, { fromMe: true, chatId: ALICE, id: '3EB0E1' });
    s.client.fire('message_ack', own, 2);
    s.client.fire('loading_screen', 80, 'WhatsApp');
    const [ack, loading] = s.payloads('engine.event');
    expect(ack).toMatchObject({ event: 'message_ack', data: { ack: 2, message: { id: { id: '3EB0E1' }, body: 'hello' } } });
    expect(loading).toEqual({ event: 'loading_screen', data: { percent: 80, message: 'WhatsApp' } });
  });
});
