import { createHash } from 'node:crypto';
import type { MessageReactionPayload, MessageRecord, PollVotePayload, SendSeenResult } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { decryptPollVote, getBinaryNodeChild, type proto } from '@whiskeysockets/baileys';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FakePhone, FakeWaServer } from '../fake-wa/index.js';
import { ALICE, type NowebSession, pairedSessionForTests } from './harness.js';

// Spec 4.5 beyond text on NOWEB: the unmodified Baileys sends each kind of message to the fake
// WhatsApp Web server, where the recipient's device decrypts it (signal) and the test reads what
// it got. Media sends are in sending-media.test.ts (they need the fake media host).

const paired = pairedSessionForTests();
let fake: FakeWaServer;
let s: NowebSession;
let phone: FakePhone;
const alice = `${ALICE}@c.us`;
const aliceJid = `${ALICE}@s.whatsapp.net`;
const BOB = '15551230002';
const bob = `${BOB}@c.us`;

beforeAll(() => {
  ({ fake, s, phone } = paired);
});

const idOf = (record: { id: string }) => record.id.split('_')[2]!;
const run = <T = MessageRecord>(command: Parameters<NowebSession['host']['execute']>[0]) => s.host.execute(command) as Promise<T>;
/** A text from Alice, once the session has it: its full id. */
const fromAlice = async (text: string, options: { participant?: string; chat?: string } = {}): Promise<string> => {
  phone.text(options.chat ?? ALICE, text, options.participant ? { participant: options.participant } : {});
  const event = await s.waitForEvent('message', (p) => p.body === text);
  return event.payload.id as string;
};
/** The stanza the client wrote for a message id. */
const stanza = (id: string) => waitFor(() => phone.sent.find((m) => m.id === id), `the stanza ${id}`);

describe('NOWEB sends (spec 4.5): record, message.any (api), SERVER, and what the recipient reads', () => {
  it('sendLocation: the record has location, the recipient a locationMessage', async () => {
    const since = s.events.length;
    const record = await run({ op: 'send.location', args: { chatId: alice, latitude: 52.52, longitude: 13.405, title: 'Berlin' } });
    expect(record).toMatchObject({
      from: phone.contactId,
      to: alice,
      fromMe: true,
      source: 'api',
      body: '',
      hasMedia: false,
      ack: 0,
      location: { latitude: '52.52', longitude: '13.405', live: false, name: 'Berlin', description: 'Berlin' },
    });
    const any = await s.waitForEvent('message.any', (p) => p.id === record.id, since);
    expect(any.payload).toEqual(record);
    await s.waitForEvent('message.ack', (p) => p.id === record.id && p.ackName === 'SERVER', since);
    const read = await phone.read(idOf(record));
    expect(read.locationMessage).toMatchObject({ degreesLatitude: 52.52, degreesLongitude: 13.405, name: 'Berlin' });
  });

  it('sendContactVcard: one card is a contactMessage (body the vCard), several a contactsArrayMessage', async () => {
    const ada = 'BEGIN:VCARD\nVERSION:3.0\nFN:Ada Lovelace\nTEL;type=CELL;type=VOICE;waid=15550001111:+1 555 000 1111\nEND:VCARD';
    const one = await run({ op: 'send.contactVcard', args: { chatId: alice, contacts: [{ vcard: ada }] } });
    expect(one).toMatchObject({ body: ada, vCards: [ada] });
    expect((await phone.read(idOf(one))).contactMessage).toMatchObject({ displayName: 'Ada Lovelace', vcard: ada });

    // Built from fields: FN escaped as vCard text (RFC 6350), read back unescaped as the display name.
    const grace = 'BEGIN:VCARD\nVERSION:3.0\nFN:Grace\\, Admiral\nTEL;type=CELL;type=VOICE;waid=15550002222:+1 555 000 2222\nEND:VCARD';
    const two = await run({
      op: 'send.contactVcard',
      args: { chatId: alice, contacts: [{ vcard: ada }, { fullName: 'Grace, Admiral', phoneNumber: '+1 555 000 2222' }] },
    });
    expect(two).toMatchObject({ body: '', vCards: [ada, grace] });
    const array = (await phone.read(idOf(two))).contactsArrayMessage;
    expect(array?.contacts?.map((c) => c.displayName)).toEqual(['Ada Lovelace', 'Grace, Admiral']);
  });

  it('sendPoll: V3 for one answer, the first version for several, a 32-byte secret, meta polltype creation', async () => {
    const single = await run({
      op: 'send.poll',
      args: { chatId: alice, poll: { name: 'Lunch?', options: ['Pizza', 'Sushi'], multipleAnswers: false } },
    });
    expect(single).toMatchObject({ body: 'Lunch?', fromMe: true, source: 'api' });
    const read = await phone.read(idOf(single));
    expect(read.pollCreationMessageV3).toMatchObject({
      name: 'Lunch?',
      selectableOptionsCount: 1,
      options: [{ optionName: 'Pizza' }, { optionName: 'Sushi' }],
    });
    expect(read.messageContextInfo?.messageSecret).toHaveLength(32);
    const node = (await stanza(idOf(single))).node;
    expect(node.attrs.type).toBe('poll');
    expect(getBinaryNodeChild(node, 'meta')?.attrs).toEqual({ polltype: 'creation' });

    const multi = await run({
      op: 'send.poll',
      args: { chatId: alice, poll: { name: 'Which days?', options: ['Mon', 'Tue', 'Wed'], multipleAnswers: true } },
    });
    expect((await phone.read(idOf(multi))).pollCreationMessage).toMatchObject({ name: 'Which days?', selectableOptionsCount: 0 });
  });

  it('sendButtonReply: a buttonsResponseMessage quoting the button message, body the label', async () => {
    const question = await fromAlice('Pick one (buttons)');
    const record = await run({
      op: 'send.buttonReply',
      args: { chatId: alice, reply_to: question, selectedButtonID: 'yes-1', selectedDisplayText: 'Yes' },
    });
    expect(record).toMatchObject({ body: 'Yes', replyTo: { id: question.split('_')[2], body: 'Pick one (buttons)' } });
    const reply = (await phone.read(idOf(record))).buttonsResponseMessage;
    expect(reply).toMatchObject({ selectedButtonId: 'yes-1', selectedDisplayText: 'Yes' });
    expect(reply?.contextInfo).toMatchObject({ stanzaId: question.split('_')[2], participant: aliceJid });
  });

  it('sendLinkCustomPreview: the text with the given title, description and a JPEG thumbnail; nothing fetched', async () => {
    const text = 'see https://example.com/article';
    const record = await run({
      op: 'send.linkCustomPreview',
      args: {
        chatId: alice,
        text,
        linkPreviewHighQuality: false,
        preview: {
          url: 'https://example.com/article',
          title: 'An article',
          description: 'About things',
          image: { mimetype: 'image/png', data: PNG },
        },
      },
    });
    expect(record).toMatchObject({ body: text, hasMedia: false });
    const preview = (await phone.read(idOf(record))).extendedTextMessage;
    expect(preview).toMatchObject({ text, matchedText: 'https://example.com/article', title: 'An article', description: 'About things' });
    expect(Buffer.from(preview!.jpegThumbnail!).subarray(0, 2).toString('hex')).toBe('ffd8');
    expect(preview?.thumbnailDirectPath).toBeFalsy();
  });

  it('a preview image the engine cannot read is a 400 naming preview.image', async () => {
    const bad = run({
      op: 'send.linkCustomPreview',
      args: {
        chatId: alice,
        text: 'https://example.com/x',
        linkPreviewHighQuality: false,
        preview: {
          url: 'https://example.com/x',
          title: 'x',
          description: '',
          image: { mimetype: 'image/png', data: Buffer.from('not an image').toString('base64') },
        },
      },
    });
    await expect(bad).rejects.toMatchObject({ code: 'INVALID', details: [{ path: 'body.preview.image' }] });
  });

  it('reply_to quotes a message this engine saw with its content (replyTo.body), and any other by id', async () => {
    const original = await fromAlice('Where are you?');
    const record = await run({ op: 'send.location', args: { chatId: alice, latitude: 1.5, longitude: 2.5, reply_to: original } });
    expect(record.replyTo).toMatchObject({ id: original.split('_')[2], participant: alice, body: 'Where are you?', hasMedia: false });
    const context = (await phone.read(idOf(record))).locationMessage?.contextInfo;
    expect(context).toMatchObject({ stanzaId: original.split('_')[2], participant: aliceJid, quotedMessage: { conversation: 'Where are you?' } });

    const unknown = await run({
      op: 'send.text',
      args: { chatId: alice, text: 'old one', linkPreview: true, reply_to: `false_${alice}_0123456789ABCDEF` },
    });
    expect(unknown.replyTo).toMatchObject({ id: '0123456789ABCDEF', participant: alice, body: '' });
    expect((await phone.read(idOf(unknown))).extendedTextMessage?.contextInfo).toMatchObject({ stanzaId: '0123456789ABCDEF', participant: aliceJid });
  });
});

describe('NOWEB operations on existing messages (spec 4.5)', () => {
  it('message.react: a reaction message with the target key; message.reaction from me, which is the answer', async () => {
    const target = await fromAlice('react to this');
    const since = s.events.length;
    const payload = await run<MessageReactionPayload>({ op: 'message.react', args: { messageId: target, reaction: '👍' } });
    expect(payload).toMatchObject({ from: phone.contactId, fromMe: true, to: alice, participant: null, reaction: { text: '👍', messageId: target } });
    expect(payload.id).toMatch(new RegExp(`^true_${alice}_[0-9A-F]+$`));
    const event = await s.waitForEvent('message.reaction', (p) => p.id === payload.id, since);
    expect(event.payload).toEqual(payload);
    const node = (await stanza(idOf(payload))).node;
    expect(node.attrs.type).toBe('reaction');
    const reaction = (await phone.read(idOf(payload))).reactionMessage;
    expect(reaction).toMatchObject({ text: '👍', key: { remoteJid: aliceJid, fromMe: false, id: target.split('_')[2] } });
    // A reaction is not a message of the interface: no message.any, no acks for it.
    expect(s.events.slice(since).some((e) => e.envelope.event === 'message.any')).toBe(false);

    const removed = await run<MessageReactionPayload>({ op: 'message.react', args: { messageId: target, reaction: '' } });
    expect((await phone.read(idOf(removed))).reactionMessage?.text).toBe('');
  });

  it('message.react in a group names the member who wrote the message', async () => {
    const group = fake.group('120363000000000091', { subject: 'Reacts', creator: ALICE, participants: [{ jid: ALICE }, { jid: phone.phone }] });
    const target = await fromAlice('group message', { chat: group.id, participant: ALICE });
    expect(target).toBe(`false_${group.id}_${target.split('_')[2]}_${alice}`);
    const payload = await run<MessageReactionPayload>({ op: 'message.react', args: { messageId: target, reaction: '🎉' } });
    expect(payload).toMatchObject({ to: group.id, participant: phone.contactId, reaction: { messageId: target } });
    const sent = await stanza(idOf(payload));
    expect(sent.to).toBe(group.id);
    expect(JSON.stringify(sent.node)).toContain('skmsg');
  });

  it('message.forward: the original content marked forwarded; an unknown message is a 404', async () => {
    const original = await fromAlice('worth passing on');
    const since = s.events.length;
    const record = await run({ op: 'message.forward', args: { chatId: bob, messageId: original } });
    expect(record).toMatchObject({ to: bob, fromMe: true, source: 'api', body: 'worth passing on', ack: 0 });
    await s.waitForEvent('message.ack', (p) => p.id === record.id && p.ackName === 'SERVER', since);
    expect((await stanza(idOf(record))).to).toBe(`${BOB}@s.whatsapp.net`);
    const read = await phone.read(idOf(record));
    expect(read.extendedTextMessage).toMatchObject({ text: 'worth passing on', contextInfo: { isForwarded: true, forwardingScore: 1 } });

    await expect(run({ op: 'message.forward', args: { chatId: bob, messageId: `false_${alice}_FFFFFFFFFFFFFFFF` } })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('send.pollVote on its own poll: encrypted so the voter and creator key opens it; poll.vote from me', async () => {
    const poll = await run({
      op: 'send.poll',
      args: { chatId: alice, poll: { name: 'Tea or coffee?', options: ['Tea', 'Coffee'], multipleAnswers: false } },
    });
    const secret = (await phone.read(idOf(poll))).messageContextInfo!.messageSecret!;
    const since = s.events.length;
    const vote = await run<PollVotePayload>({ op: 'send.pollVote', args: { chatId: alice, pollMessageId: poll.id, votes: ['Coffee'] } });
    expect(vote).toMatchObject({
      vote: { from: phone.contactId, to: alice, fromMe: true, selectedOptions: ['Coffee'] },
      poll: { id: poll.id, from: phone.contactId, to: alice, fromMe: true },
    });
    expect((await s.waitForEvent('poll.vote', (p) => (p.vote as { id: string }).id === vote.vote.id, since)).payload).toEqual(vote);
    const node = (await stanza(idOf(vote.vote))).node;
    expect(getBinaryNodeChild(node, 'meta')?.attrs).toEqual({ polltype: 'vote' });
    const update = (await phone.read(idOf(vote.vote))).pollUpdateMessage!;
    expect(update.pollCreationMessageKey).toMatchObject({ remoteJid: aliceJid, fromMe: true, id: idOf(poll) });
    expect(openVote(update, { pollMsgId: idOf(poll), creator: phone.jid, voter: phone.jid, secret })).toEqual([sha('Coffee')]);
  });

  it("send.pollVote on a contact's poll uses the poll's secret and creator; options are checked", async () => {
    const poll = phone.poll(ALICE, 'Dinner?', ['Pasta', 'Salad', 'Soup']);
    await s.waitForEvent('message', (p) => p.body === 'Dinner?');
    const pollMessageId = `false_${alice}_${poll.id}`;
    const vote = await run<PollVotePayload>({ op: 'send.pollVote', args: { chatId: alice, pollMessageId, votes: ['Soup'] } });
    expect(vote.poll).toEqual({ id: pollMessageId, from: alice, to: phone.contactId, fromMe: false });
    const update = (await phone.read(idOf(vote.vote))).pollUpdateMessage!;
    expect(update.pollCreationMessageKey).toMatchObject({ remoteJid: aliceJid, fromMe: false, id: poll.id });
    expect(openVote(update, { pollMsgId: poll.id, creator: aliceJid, voter: phone.jid, secret: poll.secret })).toEqual([sha('Soup')]);

    const args = { chatId: alice, pollMessageId };
    await expect(run({ op: 'send.pollVote', args: { ...args, votes: ['Pizza'] } })).rejects.toMatchObject({
      code: 'INVALID',
      details: [{ path: 'body.votes', reason: '"Pizza" is not an option of the poll' }],
    });
    await expect(run({ op: 'send.pollVote', args: { ...args, votes: ['Pasta', 'Soup'] } })).rejects.toMatchObject({
      code: 'INVALID',
      details: [{ path: 'body.votes', reason: 'the poll takes one answer' }],
    });
    await expect(
      run({ op: 'send.pollVote', args: { chatId: alice, pollMessageId: `false_${alice}_0000000000000000`, votes: ['x'] } }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('chat.seen: read receipts to the sender, for the unread messages of the chat or the ones named', async () => {
    const carol = '15551230003';
    const first = await fromAlice('unread one', { chat: carol });
    const second = await fromAlice('unread two', { chat: carol });
    const before = phone.receiptsSent.length;
    const seen = await run<SendSeenResult>({ op: 'chat.seen', args: { chatId: `${carol}@c.us` } });
    expect(seen).toEqual({ chatId: `${carol}@c.us`, messageIds: [first, second] });
    const read = await waitFor(() => phone.receiptsSent.slice(before).find((r) => r.type === 'read'), 'the read receipt');
    expect(read).toMatchObject({ to: `${carol}@s.whatsapp.net`, ids: [first.split('_')[2], second.split('_')[2]] });
    // Read now: nothing more to mark.
    expect(await run<SendSeenResult>({ op: 'chat.seen', args: { chatId: `${carol}@c.us` } })).toEqual({ chatId: `${carol}@c.us`, messageIds: [] });

    const named = `false_${carol}@c.us_ABCDEF0123456789`;
    const again = phone.receiptsSent.length;
    expect(await run<SendSeenResult>({ op: 'chat.seen', args: { chatId: `${carol}@c.us`, messageIds: [named] } })).toEqual({
      chatId: `${carol}@c.us`,
      messageIds: [named],
    });
    const explicit = await waitFor(() => phone.receiptsSent.slice(again).find((r) => r.type === 'read'), 'the second read receipt');
    expect(explicit.ids).toEqual(['ABCDEF0123456789']);
  });

  it('chat.typing: composing, then paused, to the chat', async () => {
    const before = phone.chatStates.length;
    await run({ op: 'chat.typing', args: { chatId: alice, typing: true } });
    await run({ op: 'chat.typing', args: { chatId: alice, typing: false } });
    const states = await waitFor(() => (phone.chatStates.length >= before + 2 ? phone.chatStates.slice(before) : undefined), 'two chat states');
    expect(states).toEqual([
      { to: aliceJid, state: 'composing' },
      { to: aliceJid, state: 'paused' },
    ]);
  });

  it('message.star: an app state patch (regular_low) the phone decodes: star, then unstar', async () => {
    const target = await fromAlice('star me');
    await run({ op: 'message.star', args: { chatId: alice, messageId: target, star: true } });
    await run({ op: 'message.star', args: { chatId: alice, messageId: target, star: false } });
    await phone.appState.settled();
    const stars = phone.appState.uploaded.filter((u) => u.index[0] === 'star' && u.index[2] === target.split('_')[2]);
    expect(stars.map((u) => [u.collection, u.index, u.action.starAction?.starred])).toEqual([
      ['regular_low', ['star', aliceJid, target.split('_')[2], '0', '0'], true],
      ['regular_low', ['star', aliceJid, target.split('_')[2], '0', '0'], false],
    ]);
  });

  it('buttons and lists answer 422 NOT_SUPPORTED naming NOWEB (WhatsApp no longer shows them from linked devices)', async () => {
    const buttons = run({
      op: 'send.buttons',
      args: { chatId: alice, body: 'b', headerImage: null, buttons: [{ type: 'reply', text: 'x' }] },
    });
    await expect(buttons).rejects.toMatchObject({ code: 'NOT_SUPPORTED', details: { engine: 'NOWEB' } });
    const list = run({
      op: 'send.list',
      args: { chatId: alice, message: { title: 't', button: 'b', sections: [{ title: 's', rows: [{ title: 'r', rowId: '1' }] }] } },
    });
    await expect(list).rejects.toMatchObject({ code: 'NOT_SUPPORTED', details: { engine: 'NOWEB' } });
  });
});

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** The recipient's side of a vote: Baileys' own decryption, with the poll's secret. */
function openVote(
  update: proto.Message.IPollUpdateMessage,
  poll: { pollMsgId: string; creator: string; voter: string; secret: Uint8Array },
): string[] {
  const decrypted = decryptPollVote(update.vote!, {
    pollMsgId: poll.pollMsgId,
    pollCreatorJid: poll.creator,
    voterJid: poll.voter,
    pollEncKey: poll.secret,
  });
  return (decrypted.selectedOptions ?? []).map((hash) => Buffer.from(hash).toString('hex'));
}

/** An 8x8 PNG (base64), red: small enough to inline, real enough for sharp to make a thumbnail. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAEklEQVR4nGP4z8CAFWEXHbQSACj/P8Fu7N9hAAAAAElFTkSuQmCC';
