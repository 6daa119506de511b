import type { MessageRecord } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FakePhone, FakeWaServer } from '../fake-wa/index.js';
import { ALICE, type NowebSession, pairedSessionForTests } from './harness.js';

const paired = pairedSessionForTests();
let fake: FakeWaServer;
let s: NowebSession;
let phone: FakePhone;
const alice = `${ALICE}@c.us`;

beforeAll(() => {
  ({ fake, s, phone } = paired);
});

const send = (args: { chatId: string; text: string; reply_to?: string; id?: string }) =>
  s.host.execute({ op: 'send.text', args: { linkPreview: true, ...args } }) as Promise<MessageRecord>;

describe('NOWEB incoming messages (spec 2.5, 6.2 message, message.any)', () => {
  it('delivers an incoming text as message and message.any with source app', async () => {
    const since = s.events.length;
    const id = phone.text(ALICE, 'Hi there', { pushName: 'Alice' });
    const message = await s.waitForEvent('message', (p) => p.body === 'Hi there', since);
    const any = await s.waitForEvent('message.any', (p) => p.body === 'Hi there', since);
    expect(message.payload).toEqual(any.payload);
    expect(message.payload).toMatchObject({
      id: `false_${alice}_${id}`,
      from: alice,
      to: phone.contactId,
      fromMe: false,
      source: 'app',
      participant: null,
      hasMedia: false,
      media: null,
      ack: 2,
      ackName: 'DEVICE',
      vCards: [],
    });
    expect(message.me).toEqual({ id: phone.contactId, pushName: 'Me' });
  });

  it('gives a message from the phone itself (another device) as message.any only, fromMe', async () => {
    const since = s.events.length;
    const id = phone.message({ from: phone.jid, attrs: { recipient: `${ALICE}@s.whatsapp.net` } }, { conversation: 'sent on the phone' });
    const any = await s.waitForEvent('message.any', (p) => p.body === 'sent on the phone', since);
    expect(any.payload).toMatchObject({ id: `true_${alice}_${id}`, from: phone.contactId, to: alice, fromMe: true, source: 'app' });
    expect(s.envelopes('message').some((e) => e.payload.body === 'sent on the phone')).toBe(false);
  });

  it('keeps @lid where no phone number is known, and uses the number the stanza gives', async () => {
    const since = s.events.length;
    const lidOnly = phone.text('245120000000001@lid', 'from a lid');
    const withPhone = phone.text('245120000000002@lid', 'from a lid with a number', {
      attrs: { sender_pn: '15551230002@s.whatsapp.net', addressing_mode: 'lid' },
    });
    const first = await s.waitForEvent('message', (p) => p.body === 'from a lid', since);
    const second = await s.waitForEvent('message', (p) => p.body === 'from a lid with a number', since);
    expect(first.payload).toMatchObject({ id: `false_245120000000001@lid_${lidOnly}`, from: '245120000000001@lid' });
    expect(second.payload).toMatchObject({ id: `false_15551230002@c.us_${withPhone}`, from: '15551230002@c.us' });
  });

  it('gives a LID sender as <number>@c.us once the library has learned its number', async () => {
    await send({ chatId: alice, text: 'so the library looks up your LID' });
    const lid = fake.lidOf(`${ALICE}@s.whatsapp.net`)!;
    const since = s.events.length;
    const id = phone.text(lid, 'from my lid');
    const message = await s.waitForEvent('message', (p) => p.body === 'from my lid', since);
    expect(message.payload).toMatchObject({ id: `false_${alice}_${id}`, from: alice });
  });

  it('names the sender of a group message in participant and at the end of the id', async () => {
    const since = s.events.length;
    const id = phone.text('120363000000000001@g.us', 'hello group', { participant: ALICE });
    const message = await s.waitForEvent('message', (p) => p.body === 'hello group', since);
    expect(message.payload).toMatchObject({
      id: `false_120363000000000001@g.us_${id}_${alice}`,
      from: '120363000000000001@g.us',
      participant: alice,
    });
  });
});

describe('NOWEB sending text (spec 6.2 ties: message.any api, then message.ack)', () => {
  it('answers the record, emits message.any (api), SERVER once written, then DEVICE and READ from receipts', async () => {
    const since = s.events.length;
    const record = await send({ chatId: alice, text: 'Hello Alice' });
    expect(record).toMatchObject({ from: phone.contactId, to: alice, fromMe: true, source: 'api', body: 'Hello Alice', ack: 0, ackName: 'PENDING' });
    const messageId = record.id.split('_')[2]!;
    expect(record.id).toBe(`true_${alice}_${messageId}`);
    const server = await s.waitForEvent('message.ack', (p) => p.id === record.id && p.ack === 1, since);
    const any = s.envelopes('message.any').find((e) => e.payload.id === record.id)!;
    expect(any.payload).toMatchObject({ source: 'api', fromMe: true });
    expect(any.id < server.id).toBe(true);
    expect(server.payload).toEqual({ id: record.id, from: alice, to: phone.contactId, participant: null, fromMe: true, ack: 1, ackName: 'SERVER' });

    const sent = await waitFor(() => phone.sent.find((m) => m.id === messageId), 'the stanza at the server');
    expect(sent.to).toBe(`${ALICE}@s.whatsapp.net`);
    expect((await phone.read(messageId)).conversation).toBe('Hello Alice');

    phone.receipt(messageId, ALICE);
    await s.waitForEvent('message.ack', (p) => p.id === record.id && p.ackName === 'DEVICE', since);
    phone.receipt(messageId, ALICE, 'read');
    await s.waitForEvent('message.ack', (p) => p.id === record.id && p.ackName === 'READ', since);
    phone.receipt(messageId, ALICE, 'played');
    await s.waitForEvent('message.ack', (p) => p.id === record.id && p.ackName === 'PLAYED', since);
    const acks = s
      .payloads<{ id: string; ack: number }>('message.ack')
      .filter((p) => p.id === record.id)
      .map((p) => p.ack);
    expect(acks).toEqual([1, 2, 3, 4]);
  });

  it('sends to a group with a sender key, and acks each member as the group variant', async () => {
    const group = fake.group('120363000000000077', { subject: 'Sends', creator: ALICE, participants: [{ jid: ALICE }, { jid: phone.phone }] });
    const record = await send({ chatId: group.id, text: 'hello all' });
    const messageId = record.id.split('_')[2]!;
    expect(record).toMatchObject({ id: `true_${group.id}_${messageId}`, to: group.id, participant: phone.contactId, ack: 0 });
    const sent = await waitFor(() => phone.sent.find((m) => m.id === messageId), 'the group stanza');
    expect(JSON.stringify(sent.node)).toContain('skmsg');
    phone.receipt(messageId, group.id, 'read', ALICE);
    const ack = await s.waitForEvent('message.ack', (p) => p.id === `${record.id}_${alice}`);
    expect(ack.payload).toEqual({
      id: `${record.id}_${alice}`,
      from: group.id,
      to: phone.contactId,
      participant: alice,
      fromMe: true,
      ack: 3,
      ackName: 'READ',
    });
  });

  it('uses the message id the client chose', async () => {
    const record = await send({ chatId: alice, text: 'with my id', id: 'ABCDEF0123456789' });
    expect(record.id).toBe(`true_${alice}_ABCDEF0123456789`);
    await waitFor(() => phone.sent.find((m) => m.id === 'ABCDEF0123456789'), 'the stanza with the chosen id');
  });

  it('quotes the message it replies to', async () => {
    const original = phone.text(ALICE, 'question?');
    await s.waitForEvent('message', (p) => p.body === 'question?');
    const record = await send({ chatId: alice, text: 'answer', reply_to: `false_${alice}_${original}` });
    expect(record.replyTo).toMatchObject({ id: original });
    const read = await phone.read(record.id.split('_')[2]!);
    expect(read.extendedTextMessage?.text).toBe('answer');
    expect(read.extendedTextMessage?.contextInfo).toMatchObject({ stanzaId: original, participant: `${ALICE}@s.whatsapp.net` });
  });
});

describe('NOWEB reactions, edits, revokes, polls (spec 6.2)', () => {
  it('gives a reaction only as message.reaction, pointing at the message reacted to', async () => {
    const record = await send({ chatId: alice, text: 'react to me' });
    const target = record.id.split('_')[2]!;
    const since = s.events.length;
    const id = phone.reaction(ALICE, { id: target, fromMe: true }, '👍');
    const reaction = await s.waitForEvent('message.reaction', () => true, since);
    expect(reaction.payload).toMatchObject({
      id: `false_${alice}_${id}`,
      from: alice,
      to: phone.contactId,
      fromMe: false,
      participant: null,
      reaction: { text: '👍', messageId: record.id },
    });
    phone.reaction(ALICE, { id: target, fromMe: true }, '');
    await s.waitForEvent('message.reaction', (p) => (p.reaction as { text: string }).text === '', since);
    expect(s.events.slice(since).some((e) => e.envelope.event === 'message' || e.envelope.event === 'message.any')).toBe(false);
  });

  it('emits message.edited with the new body and the edited message id', async () => {
    const original = phone.text(ALICE, 'typo');
    await s.waitForEvent('message', (p) => p.body === 'typo');
    const since = s.events.length;
    const action = phone.edit(ALICE, original, 'fixed');
    const edited = await s.waitForEvent('message.edited', () => true, since);
    expect(edited.payload).toMatchObject({ id: `false_${alice}_${action}`, editedMessageId: original, body: 'fixed' });
  });

  it('emits message.revoked with the revoked message id and no before', async () => {
    const original = phone.text(ALICE, 'oops');
    await s.waitForEvent('message', (p) => p.body === 'oops');
    const since = s.events.length;
    const action = phone.revoke(ALICE, original);
    const revoked = await s.waitForEvent('message.revoked', () => true, since);
    expect(revoked.payload).toMatchObject({ after: { id: `false_${alice}_${action}` }, revokedMessageId: original, before: null });
  });

  it('reads a poll vote into option names (poll.vote); a vote on an unknown poll is poll.vote.failed', async () => {
    const poll = phone.poll(ALICE, 'Lunch?', ['Pizza', 'Sushi']);
    await s.waitForEvent('message', (p) => p.body === 'Lunch?');
    const since = s.events.length;
    const vote = phone.vote(ALICE, poll, ['Sushi']);
    const got = await s.waitForEvent('poll.vote', () => true, since);
    expect(got.payload).toMatchObject({
      vote: { id: `false_${alice}_${vote}`, from: alice, to: phone.contactId, fromMe: false, selectedOptions: ['Sushi'] },
      poll: { id: `false_${alice}_${poll.id}`, from: alice, to: phone.contactId, fromMe: false },
    });
    phone.vote(ALICE, { ...poll, id: 'UNKNOWNPOLL0001' }, ['Pizza']);
    const failed = await s.waitForEvent('poll.vote.failed', () => true, since);
    expect(failed.payload).toMatchObject({ vote: { selectedOptions: [] }, poll: { id: `false_${alice}_UNKNOWNPOLL0001` } });
  });
});
