import { waitFor } from '@switchboard/testkit';
import { createHash } from 'node:crypto';
import { decryptPollVote, proto } from '@whiskeysockets/baileys';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakePhone, FakeWaServer } from '../fake-wa/index.js';
import { buildGows, closeChecked, fakeServerDriver, type GowsDriver, pairWithFake } from './driver.js';

const BOB = '15551230011';
const bob = `${BOB}@c.us`;
let fake: FakeWaServer;
let gows: GowsDriver;
let phone: FakePhone;

beforeAll(async () => {
  let binary: string;
  [fake, binary] = await Promise.all([FakeWaServer.start({ signal: true }), buildGows()]);
  gows = fakeServerDriver(binary, fake, 'gows');
  phone = await pairWithFake(gows, fake, 'gows', { [BOB]: '245120000000011' });
}, 180_000);

afterAll(() => closeChecked(gows, fake));

async function sendText(text: string): Promise<Record<string, unknown>> {
  return gows.request<Record<string, unknown>>('sendText', { chatId: bob, text });
}

const bareId = (id: unknown) => String(id).split('_')[2]!;

describe('GOWS messages (spec 2.5, 6.2) against the fake', () => {
  it('reports receipts of a sent message as message.ack DEVICE, then READ', async () => {
    const since = gows.notifications.length;
    const sent = await sendText('ack me');
    phone.receipt(bareId(sent.id), BOB);
    await gows.event('message.ack', (p) => p.id === sent.id && p.ackName === 'DEVICE', since);
    phone.receipt(bareId(sent.id), BOB, 'read');
    const read = await gows.event('message.ack', (p) => p.id === sent.id && p.ackName === 'READ', since);
    expect(read).toEqual({ id: sent.id, from: bob, to: phone.contactId, participant: null, fromMe: true, ack: 3, ackName: 'READ' });
  });

  it('gives a reaction only as message.reaction, pointing at the message reacted to', async () => {
    const sent = await sendText('react to me');
    const since = gows.notifications.length;
    const id = phone.reaction(BOB, { id: bareId(sent.id), fromMe: true }, '👍');
    const reaction = await gows.event('message.reaction', () => true, since);
    expect(reaction).toMatchObject({
      id: `false_${bob}_${id}`,
      from: bob,
      to: phone.contactId,
      fromMe: false,
      participant: null,
      reaction: { text: '👍', messageId: sent.id },
    });
    expect(gows.notifications.slice(since).some((n) => n.params.event === 'message' || n.params.event === 'message.any')).toBe(false);
  });

  it('emits message.edited and message.revoked with the target ids', async () => {
    const original = phone.text(BOB, 'typo');
    await gows.event('message', (p) => p.body === 'typo');
    const since = gows.notifications.length;
    const edit = phone.edit(BOB, original, 'fixed');
    expect(await gows.event('message.edited', () => true, since)).toMatchObject({
      id: `false_${bob}_${edit}`,
      editedMessageId: original,
      body: 'fixed',
    });
    const revoke = phone.revoke(BOB, original);
    expect(await gows.event('message.revoked', () => true, since)).toMatchObject({
      after: { id: `false_${bob}_${revoke}` },
      revokedMessageId: original,
      before: null,
    });
  });

  it('keeps @lid where no number is known, and uses the number the stanza gives', async () => {
    const lidOnly = phone.text('245120000000099@lid', 'from a lid');
    expect(await gows.event('message', (p) => p.body === 'from a lid')).toMatchObject({
      id: `false_245120000000099@lid_${lidOnly}`,
      from: '245120000000099@lid',
    });
    const withPhone = phone.text('245120000000098@lid', 'from a lid with a number', {
      attrs: { sender_pn: '15551230098@s.whatsapp.net', addressing_mode: 'lid' },
    });
    expect(await gows.event('message', (p) => p.body === 'from a lid with a number')).toMatchObject({
      id: `false_15551230098@c.us_${withPhone}`,
      from: '15551230098@c.us',
      _data: { key: { remoteJid: '245120000000098@lid', remoteJidAlt: '15551230098@s.whatsapp.net' } },
    });
  });

  it('reacts (message.reaction of its own), marks read, types, and sends a location', async () => {
    const incoming = phone.text(BOB, 'read me');
    const message = await gows.event('message', (p) => p.body === 'read me');
    const since = gows.notifications.length;
    const reaction = await gows.request<Record<string, unknown>>('react', { messageId: message.id, reaction: '❤️' });
    expect(reaction).toMatchObject({ from: phone.contactId, fromMe: true, to: bob, reaction: { text: '❤️', messageId: message.id } });
    await gows.event('message.reaction', (p) => p.id === reaction.id, since);
    expect(await phone.read(bareId(reaction.id))).toMatchObject({ reactionMessage: { text: '❤️', key: { id: incoming } } });

    const seen = await gows.request('sendSeen', { chatId: bob });
    expect(seen).toEqual({ chatId: bob, messageIds: expect.arrayContaining([message.id]) as unknown });
    await waitFor(() => phone.receiptsSent.find((r) => r.type === 'read' && r.ids.includes(incoming)), 'a read receipt', 10_000);

    await gows.request('setTyping', { chatId: bob, typing: true });
    await waitFor(() => phone.chatStates.find((c) => c.state === 'composing' && c.to.startsWith(BOB)), 'composing', 10_000);

    const location = await gows.request<Record<string, unknown>>('sendLocation', { chatId: bob, latitude: 52.5, longitude: 13.4, title: 'Berlin' });
    expect(location).toMatchObject({ location: { latitude: '52.5', longitude: '13.4', name: 'Berlin', live: false }, body: '' });
    expect(await phone.read(bareId(location.id))).toMatchObject({ locationMessage: { degreesLatitude: 52.5, name: 'Berlin' } });
    expect(await gows.request<{ methods: string[] }>('capabilities')).toEqual({
      methods: expect.arrayContaining(['react', 'sendSeen', 'setTyping', 'sendLocation']) as unknown,
    });
  });
});

describe('GOWS chats operations against the fake', () => {
  it('edits and deletes its own message for everyone (the phone decrypts each; message.edited, message.revoked), sets presence', async () => {
    const sent = await sendText('helo');
    let since = gows.notifications.length;
    await gows.request('editMessage', { chatId: bob, messageId: sent.id, text: 'hello' });
    const edited = await gows.event('message.edited', (p) => p.editedMessageId === bareId(sent.id), since);
    expect(edited.body).toBe('hello');
    // whatsmeow wraps an edit as the apps send it: editedMessage.message.protocolMessage.
    expect(await phone.read(bareId(edited.id))).toMatchObject({
      editedMessage: { message: { protocolMessage: { key: { id: bareId(sent.id) }, editedMessage: { conversation: 'hello' } } } },
    });
    since = gows.notifications.length;
    await gows.request('deleteMessage', { chatId: bob, messageId: sent.id });
    const revoked = await gows.event('message.revoked', (p) => p.revokedMessageId === bareId(sent.id), since);
    expect(await phone.read(bareId((revoked.after as { id: string }).id))).toMatchObject({ protocolMessage: { key: { id: bareId(sent.id) } } });

    await gows.request('setPresence', { chatId: bob, presence: 'paused' });
    await waitFor(() => phone.chatStates.find((c) => c.state === 'paused' && c.to.startsWith(BOB)), 'paused', 10_000);
    await gows.request('subscribePresence', { chatId: bob });
    await expect(gows.request('editMessage', { chatId: bob, messageId: `false_${bob}_ABCDEF0123456789`, text: 'x' })).rejects.toThrow(/account sent/);
  });
});

describe('GOWS message.pin against the fake', () => {
  it('pins a received message for everyone for the duration (PIN_FOR_ALL), then unpins it (UNPIN_FOR_ALL), as the phone decrypts them', async () => {
    const original = phone.text(BOB, 'pin me');
    const message = await gows.event('message', (p) => p.body === 'pin me');
    const lastSent = () => phone.read(phone.sent.at(-1)!.id);
    let before = phone.sent.length;
    await gows.request('pinMessage', { chatId: bob, messageId: message.id, duration: 604800 });
    expect(phone.sent.length).toBe(before + 1);
    expect(await lastSent()).toMatchObject({
      pinInChatMessage: { type: proto.PinInChat.Type.PIN_FOR_ALL, key: { id: original, fromMe: false, remoteJid: `${BOB}@s.whatsapp.net` } },
      messageContextInfo: { messageAddOnDurationInSecs: 604800 },
    });
    before = phone.sent.length;
    await gows.request('pinMessage', { chatId: bob, messageId: message.id, duration: null });
    expect(phone.sent.length).toBe(before + 1);
    const unpin = await lastSent();
    expect(unpin.pinInChatMessage).toMatchObject({ type: proto.PinInChat.Type.UNPIN_FOR_ALL, key: { id: original } });
    expect(unpin.messageContextInfo?.messageAddOnDurationInSecs ?? null).toBeNull();
    expect(await gows.failureCode('pinMessage', { chatId: bob, messageId: message.id, duration: -1 })).toBe('INVALID');
  });
});

describe('GOWS calls and presence against the fake', () => {
  it('emits call.received, declines it (the phone sees the reject), then call.rejected with the same fields', async () => {
    const since = gows.notifications.length;
    const id = phone.call(BOB, 'offer', { video: true });
    const received = await gows.event('call.received', (p) => p.id === id, since);
    expect(received).toMatchObject({ id, from: bob, isVideo: true, isGroup: false });
    await gows.request('rejectCall', { id, from: bob });
    const rejected = await gows.event('call.rejected', (p) => p.id === id, since);
    expect(rejected).toMatchObject({ id, from: bob, isVideo: true, isGroup: false, _data: { status: 'reject' } });
    await waitFor(() => phone.callAnswers.find((node) => JSON.stringify(node).includes(id)), 'the reject stanza', 10_000);
  });

  it('reports presence and chat states as presence.update', async () => {
    const since = gows.notifications.length;
    phone.presence(BOB, 'composing');
    expect(await gows.event('presence.update', () => true, since)).toEqual({
      id: bob,
      presences: [{ participant: bob, lastKnownPresence: 'typing', lastSeen: null }],
    });
    phone.presence(BOB, 'unavailable', { lastSeen: 1_700_000_000 });
    expect(await gows.event('presence.update', (p) => JSON.stringify(p).includes('offline'), since)).toEqual({
      id: bob,
      presences: [{ participant: bob, lastKnownPresence: 'offline', lastSeen: 1_700_000_000 }],
    });
  });

  it('keeps what it heard per chat, participant by participant: presences lists it, presence reads one chat or subscribes first', async () => {
    const since = gows.notifications.length;
    phone.presence(BOB, 'available');
    await gows.event('presence.update', (p) => JSON.stringify(p).includes('online'), since);
    const bobs = { id: bob, presences: [{ participant: bob, lastKnownPresence: 'online', lastSeen: null }] };
    expect(await gows.request('presence', { chatId: bob })).toEqual(bobs);
    const carol = '15551230012@c.us';
    expect(await gows.request('presence', { chatId: carol })).toEqual({ id: carol, presences: [] });
    expect(await gows.request('presences', {})).toEqual(expect.arrayContaining([bobs, { id: carol, presences: [] }]));
  });
});

describe('GOWS groups against the fake', () => {
  it("receives a member's message (skmsg, its sender key first) with the member as participant, and sends to the group", async () => {
    const group = fake.group('120363000000000071', { subject: 'Team', creator: BOB, participants: [{ jid: BOB }, { jid: phone.phone }] });
    const first = phone.text(group.id, 'hello team', { participant: BOB, pushName: 'Bob' });
    expect(await gows.event('message', (p) => p.body === 'hello team')).toMatchObject({
      id: `false_${group.id}_${first}_${bob}`,
      from: group.id,
      participant: bob,
      to: phone.contactId,
    });
    const second = phone.text(group.id, 'again', { participant: BOB });
    await gows.event('message', (p) => p.id === `false_${group.id}_${second}_${bob}`);

    const since = gows.notifications.length;
    const sent = await gows.request<Record<string, unknown>>('sendText', { chatId: group.id, text: 'hi team' });
    expect(sent).toMatchObject({ from: phone.contactId, to: group.id, participant: phone.contactId, fromMe: true });
    await gows.event('message.ack', (p) => p.id === sent.id && p.ackName === 'SERVER', since);
    expect(phone.sent.find((m) => m.id === bareId(sent.id))?.to).toBe(group.id);
  });
});

describe('GOWS polls, contact cards, numbers and ids against the fake', () => {
  it('reads a poll vote into option names (poll.vote); a vote on an unknown poll is poll.vote.failed', async () => {
    const poll = phone.poll(BOB, 'Lunch?', ['Pizza', 'Sushi']);
    await gows.event('message', (p) => p.body === 'Lunch?');
    const since = gows.notifications.length;
    const vote = phone.vote(BOB, poll, ['Sushi']);
    expect(await gows.event('poll.vote', () => true, since)).toMatchObject({
      vote: { id: `false_${bob}_${vote}`, from: bob, to: phone.contactId, fromMe: false, selectedOptions: ['Sushi'] },
      poll: { id: `false_${bob}_${poll.id}`, from: bob, to: phone.contactId, fromMe: false },
    });
    phone.vote(BOB, { ...poll, id: 'UNKNOWNPOLL0001' }, ['Pizza']);
    expect(await gows.event('poll.vote.failed', () => true, since)).toMatchObject({
      vote: { selectedOptions: [] },
      poll: { id: `false_${bob}_UNKNOWNPOLL0001` },
    });
  });

  it('votes on a poll it received: a vote the contact decrypts with the poll secret, and poll.vote; an unknown poll is NOT_FOUND', async () => {
    const poll = phone.poll(BOB, 'Dessert?', ['Cake', 'Fruit']);
    await gows.event('message', (p) => p.body === 'Dessert?');
    const pollMessageId = `false_${bob}_${poll.id}`;
    const since = gows.notifications.length;
    const payload = await gows.request<{ vote: Record<string, unknown>; poll: Record<string, unknown> }>('sendPollVote', {
      chatId: bob,
      pollMessageId,
      votes: ['Fruit'],
    });
    expect(payload).toMatchObject({
      vote: { from: phone.contactId, to: bob, fromMe: true, selectedOptions: ['Fruit'] },
      poll: { id: pollMessageId, from: bob, to: phone.contactId, fromMe: false },
    });
    expect(await gows.event('poll.vote', (p) => (p.vote as { id: unknown }).id === payload.vote.id, since)).toEqual(payload);
    const update = (await phone.read(bareId(payload.vote.id))).pollUpdateMessage!;
    expect(update.pollCreationMessageKey).toMatchObject({ id: poll.id });
    const decrypted = decryptPollVote(update.vote!, {
      pollCreatorJid: poll.creator,
      pollMsgId: poll.id,
      pollEncKey: poll.secret,
      voterJid: phone.jid,
    });
    expect(decrypted.selectedOptions.map((hash) => Buffer.from(hash).toString('hex'))).toEqual([createHash('sha256').update('Fruit').digest('hex')]);
    expect(await gows.failureCode('sendPollVote', { chatId: bob, pollMessageId: `false_${bob}_NOPOLL0001`, votes: ['Cake'] })).toBe('NOT_FOUND');
    expect(await gows.failureCode('sendPollVote', { chatId: bob, pollMessageId, votes: ['Pie'] })).toBe('INVALID');
  });

  it('sends an event message the contact decrypts, with its message secret (the answers are encrypted with it)', async () => {
    const event = {
      name: 'Dinner',
      description: 'At eight',
      startTime: 2_063_137_000,
      endTime: 2_063_140_600,
      location: { name: 'Home' },
      extraGuestsAllowed: true,
    };
    const sent = await gows.request<Record<string, unknown>>('sendEvent', { chatId: bob, event });
    expect(sent).toMatchObject({ fromMe: true, to: bob, source: 'api' });
    const read = await phone.read(bareId(sent.id));
    expect(read.eventMessage).toMatchObject({
      name: 'Dinner',
      description: 'At eight',
      location: { name: 'Home' },
      extraGuestsAllowed: true,
      isCanceled: false,
    });
    expect(Number(read.eventMessage!.startTime)).toBe(2_063_137_000);
    expect(Number(read.eventMessage!.endTime)).toBe(2_063_140_600);
    expect(read.messageContextInfo?.messageSecret).toHaveLength(32);
  });

  it('sends a poll and a contact card the contact reads', async () => {
    const poll = await gows.request<Record<string, unknown>>('sendPoll', {
      chatId: bob,
      poll: { name: 'Dinner?', options: ['Yes', 'No'], multipleAnswers: false },
    });
    expect(poll).toMatchObject({ fromMe: true, body: 'Dinner?' });
    const sentPoll = await phone.read(bareId(poll.id));
    expect(sentPoll.pollCreationMessageV3 ?? sentPoll.pollCreationMessage).toMatchObject({
      name: 'Dinner?',
      options: [{ optionName: 'Yes' }, { optionName: 'No' }],
    });

    const vcard = 'BEGIN:VCARD\nVERSION:3.0\nFN:Ada Lovelace\nTEL;type=CELL;waid=15550009999:+15550009999\nEND:VCARD';
    const card = await gows.request<Record<string, unknown>>('sendContactVcard', { chatId: bob, vcards: [vcard] });
    expect(card).toMatchObject({ vCards: [vcard], body: vcard });
    expect((await phone.read(bareId(card.id))).contactMessage).toMatchObject({ displayName: 'Ada Lovelace', vcard });
  });

  it('forwards a message it received (marked forwarded, score 1) and its own (as it was), the phone decrypting each; an unknown one is NOT_FOUND', async () => {
    phone.text(BOB, 'forward me');
    const received = await gows.event('message', (p) => p.body === 'forward me');
    const forwarded = await gows.request<Record<string, unknown>>('forwardMessage', { chatId: bob, messageId: received.id });
    expect(forwarded).toMatchObject({ fromMe: true, to: bob, body: 'forward me' });
    expect((await phone.read(bareId(forwarded.id))).extendedTextMessage).toMatchObject({
      text: 'forward me',
      contextInfo: { isForwarded: true, forwardingScore: 1 },
    });
    const own = await sendText('mine to forward');
    const again = await gows.request<Record<string, unknown>>('forwardMessage', { chatId: bob, messageId: own.id });
    const read = (await phone.read(bareId(again.id))).extendedTextMessage;
    expect(read?.text).toBe('mine to forward');
    expect(read?.contextInfo?.isForwarded ?? false).toBe(false);
    expect(await gows.failureCode('forwardMessage', { chatId: bob, messageId: `false_${bob}_NOSUCHMESSAGE1` })).toBe('NOT_FOUND');
  });

  it('sends a button reply: a ButtonsResponseMessage the phone decrypts, quoting the buttons message', async () => {
    const buttons = await sendText('Pick one');
    const args = { chatId: bob, selectedButtonID: 'yes-1', selectedDisplayText: 'Yes', replyTo: buttons.id };
    const reply = await gows.request<Record<string, unknown>>('sendButtonReply', args);
    expect(reply).toMatchObject({ fromMe: true, body: 'Yes' });
    expect((await phone.read(bareId(String(reply.id)))).buttonsResponseMessage).toMatchObject({
      selectedButtonId: 'yes-1',
      selectedDisplayText: 'Yes',
      contextInfo: { stanzaId: bareId(buttons.id) },
    });
    expect(await gows.failureCode('sendButtonReply', { chatId: bob, selectedButtonID: 'yes-1' })).toBe('INVALID');
  });

  it('checks numbers and makes message ids', async () => {
    expect(await gows.request('checkNumber', { phone: BOB })).toEqual({ numberExists: true, chatId: bob });
    fake.notOnWhatsApp('15550009991');
    expect(await gows.request('checkNumber', { phone: '15550009991' })).toEqual({ numberExists: false });
    expect(await gows.request('newMessageId')).toMatch(/^[0-9A-F]{16,32}$/);
  });
});

describe('GOWS profile against the fake', () => {
  it('reads the profile and sets the About text', async () => {
    expect(await gows.request('profile')).toEqual({ id: phone.contactId, name: 'Me', picture: null });
    await gows.request('setProfileStatus', { status: 'Out sailing ⛵' });
    expect(phone.profile.about).toBe('Out sailing ⛵');
  });
});
