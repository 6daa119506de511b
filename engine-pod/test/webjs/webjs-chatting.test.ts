import { MessageReactionPayload, MessageRecord, SendSeenResult } from '@switchboard/protocol';
import { describe, expect, it } from 'vitest';
import { structures } from './library-shapes.js';
import { expectValidEnvelopes, tick, webjsSession } from './harness.js';

// Spec 4.5 beyond text on WEBJS: each op calls whatsapp-web.js as its documentation says, the
// scripted client answering with the structures the library builds.

const PEER = '15551234567@c.us';
const GROUP = '120363040000000001@g.us';
const ADA = 'BEGIN:VCARD\nVERSION:3.0\nFN:Ada Lovelace\nTEL;type=CELL;type=VOICE;waid=15550001111:+1 555 000 1111\nEND:VCARD';
const PNG = Buffer.from('89504e470d0a1a0a', 'hex').toString('base64');

async function working() {
  const s = webjsSession();
  await s.working();
  const run = <T>(command: Parameters<typeof s.host.execute>[0]) => s.host.execute(command) as Promise<T>;
  return { ...s, run };
}

/** The last call named `name` ... and its arguments. */
function lastCall(client: { calls: string[]; args: unknown[][] }, prefix: string): unknown[] {
  const index = client.calls.findLastIndex((call) => call.startsWith(prefix));
  expect(index, `a call ${prefix}`).toBeGreaterThanOrEqual(0);
  return client.args[index]!;
}

describe('WEBJS sends (spec 4.5): the library content class, the record (api) and message.any once', () => {
  it.each([
    ['image', { kind: 'image', caption: 'look' }, { caption: 'look' }, 'image'],
    ['file', { kind: 'file', caption: 'the report' }, { caption: 'the report', sendMediaAsDocument: true }, 'document'],
    ['voice', { kind: 'voice', convert: false }, { sendAudioAsVoice: true }, 'ptt'],
    ['video', { kind: 'video', caption: 'clip', asNote: false, convert: false }, { caption: 'clip' }, 'video'],
  ] as const)('%s: a MessageMedia with the file, base64', async (_kind, fields, options, type) => {
    const s = await working();
    const mimetype = { image: 'image/png', file: 'application/pdf', voice: 'audio/ogg; codecs=opus', video: 'video/mp4' }[fields.kind];
    const record = await s.run<MessageRecord>({
      op: 'send.media',
      args: { chatId: PEER, file: { mimetype, filename: 'x.bin', data: PNG }, ...fields } as never,
    });
    expect(MessageRecord.parse(record)).toMatchObject({ fromMe: true, source: 'api', hasMedia: true, to: PEER });
    expect(record._data).toMatchObject({ type });
    const [chatId, content, sent] = lastCall(s.client, 'sendMessage');
    expect(chatId).toBe(PEER);
    expect(content).toBeInstanceOf(structures.MessageMedia);
    expect(content).toMatchObject({ mimetype, data: PNG, filename: 'x.bin', filesize: 8 });
    expect(sent).toEqual({ ...options, sendSeen: false });
    await tick();
    expect(s.payloads('message.any').map((p) => p.id)).toEqual([record.id]);
    expectValidEnvelopes(s.events, s.dropped);
  });

  it('refuses converting and video notes, which the library cannot do, naming the field', async () => {
    const s = await working();
    const file = { mimetype: 'video/mp4', filename: null, data: PNG };
    await expect(
      s.run({ op: 'send.media', args: { kind: 'video', chatId: PEER, file, asNote: true, convert: false } as never }),
    ).rejects.toMatchObject({
      code: 'NOT_SUPPORTED',
    });
    expect(s.client.calls.filter((call) => call.startsWith('sendMessage'))).toEqual([]);
  });

  it('location: a Location named by the title; reply_to goes as quotedMessageId', async () => {
    const s = await working();
    const quoted = `false_${PEER}_3EB0QUOTED`;
    const record = await s.run<MessageRecord>({
      op: 'send.location',
      args: { chatId: PEER, latitude: 52.52, longitude: 13.405, title: 'Berlin', reply_to: quoted },
    });
    expect(MessageRecord.parse(record)).toMatchObject({ source: 'api', fromMe: true });
    const [, content, options] = lastCall(s.client, 'sendMessage');
    expect(content).toBeInstanceOf(structures.Location);
    expect(content).toMatchObject({ latitude: 52.52, longitude: 13.405, name: 'Berlin' });
    expect(options).toMatchObject({ quotedMessageId: quoted });
  });

  it('poll: a Poll with its options and whether several answers count', async () => {
    const s = await working();
    const record = await s.run<MessageRecord>({
      op: 'send.poll',
      args: { chatId: GROUP, poll: { name: 'Lunch?', options: ['Pizza', 'Sushi'], multipleAnswers: true } },
    });
    expect(MessageRecord.parse(record)).toMatchObject({ source: 'api', to: GROUP });
    const [, content] = lastCall(s.client, 'sendMessage');
    expect(content).toBeInstanceOf(structures.Poll);
    expect(content).toMatchObject({
      pollName: 'Lunch?',
      pollOptions: [
        { name: 'Pizza', localId: 0 },
        { name: 'Sushi', localId: 1 },
      ],
      options: { allowMultipleAnswers: true },
    });
  });

  it('contact card: the vCard as the text, which WhatsApp Web parses; several cards are refused', async () => {
    const s = await working();
    const record = await s.run<MessageRecord>({ op: 'send.contactVcard', args: { chatId: PEER, contacts: [{ vcard: ADA }] } });
    expect(MessageRecord.parse(record)).toMatchObject({ vCards: [ADA] });
    expect(lastCall(s.client, 'sendMessage')[1]).toBe(ADA);
    await expect(
      s.run({ op: 'send.contactVcard', args: { chatId: PEER, contacts: [{ vcard: ADA }, { fullName: 'Grace', phoneNumber: '+1 555 000 2222' }] } }),
    ).rejects.toMatchObject({ code: 'NOT_SUPPORTED' });
  });

  it('a pre-generated id is refused before anything is sent', async () => {
    const s = await working();
    await expect(s.run({ op: 'send.location', args: { chatId: PEER, latitude: 1, longitude: 2, id: 'CLIENTID0001' } })).rejects.toMatchObject({
      code: 'NOT_SUPPORTED',
    });
    expect(s.client.calls.filter((call) => call.startsWith('sendMessage'))).toEqual([]);
  });
});

describe('WEBJS actions on messages and chats', () => {
  it('forward: Message.forward, the copy the browser reports answered and announced as api, once', async () => {
    const s = await working();
    const original = s.client.know({ fromMe: false, chatId: PEER, id: 'ORIGINAL1', body: 'pass it on' });
    const record = await s.run<MessageRecord>({ op: 'message.forward', args: { chatId: GROUP, messageId: original.id._serialized! } });
    expect(lastCall(s.client, 'forward')).toEqual([GROUP]);
    expect(MessageRecord.parse(record)).toMatchObject({ fromMe: true, source: 'api', to: GROUP, body: 'pass it on' });
    await tick();
    expect(s.named('message.any').map((event) => [event.payload.id, event.payload.source])).toEqual([[record.id, 'api']]);
    expectValidEnvelopes(s.events, s.dropped);
  });

  it('forward of a message the browser does not know: NOT_FOUND', async () => {
    const s = await working();
    await expect(s.run({ op: 'message.forward', args: { chatId: GROUP, messageId: `false_${PEER}_NOSUCH` } })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('react: Client.sendReaction; the reaction the browser reports is the answer and one message.reaction (api)', async () => {
    const s = await working();
    const target = s.client.know({ fromMe: false, chatId: PEER, id: 'TOREACT1' });
    const payload = await s.run<MessageReactionPayload>({ op: 'message.react', args: { messageId: target.id._serialized!, reaction: '👍' } });
    expect(s.client.calls).toContain(`sendReaction ${target.id._serialized}`);
    expect(lastCall(s.client, 'sendReaction')).toEqual(['👍']);
    expect(MessageReactionPayload.parse(payload)).toMatchObject({
      fromMe: true,
      source: 'api',
      reaction: { text: '👍', messageId: target.id._serialized },
    });
    expect(s.payloads('message.reaction')).toEqual([payload]);
    expectValidEnvelopes(s.events, s.dropped);
  });

  it('edit: Message.edit with the text; a message WhatsApp Web will not edit is refused', async () => {
    const s = await working();
    const mine = s.client.ownMessage(PEER, { body: 'helo' });
    await s.run({
      op: 'message.edit',
      args: { chatId: PEER, messageId: mine.id._serialized!, text: 'hello', linkPreview: false, linkPreviewHighQuality: false },
    });
    expect(lastCall(s.client, 'edit')).toEqual(['hello', { linkPreview: false }]);
    const theirs = s.client.know({ fromMe: false, chatId: PEER, id: 'THEIRS1' });
    await expect(
      s.run({
        op: 'message.edit',
        args: { chatId: PEER, messageId: theirs.id._serialized!, text: 'x', linkPreview: true, linkPreviewHighQuality: false },
      }),
    ).rejects.toMatchObject({ code: 'INVALID' });
  });

  it('delete: Message.delete for everyone', async () => {
    const s = await working();
    const mine = s.client.ownMessage(PEER, { body: 'oops' });
    await s.run({ op: 'message.delete', args: { chatId: PEER, messageId: mine.id._serialized! } });
    expect(lastCall(s.client, `delete ${mine.id._serialized}`)).toEqual([true]);
  });

  it('star and unstar: Message.star / Message.unstar', async () => {
    const s = await working();
    const target = s.client.know({ fromMe: false, chatId: PEER, id: 'STARME1' });
    await s.run({ op: 'message.star', args: { chatId: PEER, messageId: target.id._serialized!, star: true } });
    await s.run({ op: 'message.star', args: { chatId: PEER, messageId: target.id._serialized!, star: false } });
    expect(s.client.calls.filter((call) => /^(un)?star /.test(call))).toEqual([`star ${target.id._serialized}`, `unstar ${target.id._serialized}`]);
  });

  it('seen: Client.sendSeen for the chat, answering the messages named; an unknown chat is NOT_FOUND', async () => {
    const s = await working();
    const named = `false_${PEER}_SEEN1`;
    const result = await s.run<SendSeenResult>({ op: 'chat.seen', args: { chatId: PEER, messageIds: [named] } });
    expect(SendSeenResult.parse(result)).toEqual({ chatId: PEER, messageIds: [named] });
    expect(s.client.calls).toContain(`sendSeen ${PEER}`);
    s.client.unknownChats.add('15559999999@c.us');
    await expect(s.run({ op: 'chat.seen', args: { chatId: '15559999999@c.us' } })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('typing: Chat.sendStateTyping, then Chat.clearState', async () => {
    const s = await working();
    await s.run({ op: 'chat.typing', args: { chatId: PEER, typing: true } });
    await s.run({ op: 'chat.typing', args: { chatId: PEER, typing: false } });
    expect(s.client.calls.filter((call) => /State/.test(call))).toEqual([`sendStateTyping ${PEER}`, `clearState ${PEER}`]);
  });
});
