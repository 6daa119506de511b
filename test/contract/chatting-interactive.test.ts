import { describe, expect, it } from 'vitest';
import { chattingSession, expectSendEvents, fieldsOf, GROUP, PEER, PNG } from './chatting-support.js';

const SESSION = 'chat-interactive';
const ctx = chattingSession(SESSION);

const send = (path: string, body: Record<string, unknown>) => ctx.gw.api('POST', path, { session: SESSION, chatId: PEER, ...body });

describe('4.5 POST /api/sendButtons (deprecated)', () => {
  it('answers 201 with the record, the buttons in _data, a header image as media', async () => {
    const buttons = [
      { type: 'reply', text: 'I am good!', id: 'good' },
      { type: 'call', text: 'Call us', phoneNumber: '+1 555 123 4567' },
      { type: 'copy', text: 'Copy code', copyCode: '4321' },
      { type: 'url', text: 'Open', url: 'https://example.com/' },
    ];
    const res = await send('/api/sendButtons', {
      header: 'How are you?',
      body: 'Tell us how you are',
      footer: 'Thanks',
      buttons,
      headerImage: { mimetype: 'image/png', data: PNG.toString('base64') },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ body: 'Tell us how you are', hasMedia: true });
    expect(res.body._data).toMatchObject({ type: 'buttons', header: 'How are you?', footer: 'Thanks' });
    expect(res.body._data.buttons).toHaveLength(4);
    await expectSendEvents(ctx.tap, res.body);
  });

  it('a button of type url needs its url, a call button its phoneNumber', async () => {
    const res = await send('/api/sendButtons', {
      body: 'x',
      buttons: [
        { type: 'url', text: 'Open' },
        { type: 'call', text: 'Call' },
      ],
    });
    expect(res.status).toBe(400);
    expect(fieldsOf(res.body)).toEqual(['body.buttons[0].url', 'body.buttons[1].phoneNumber']);
  });
});

describe('4.5 POST /api/send/buttons/reply', () => {
  it('answers 201 with the record: the chosen button as body, replyTo the button message', async () => {
    const res = await send('/api/send/buttons/reply', {
      replyTo: `false_${PEER}_BUTTONS1`,
      selectedDisplayText: 'I am good!',
      selectedButtonID: 'good',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ body: 'I am good!', replyTo: { id: `false_${PEER}_BUTTONS1`, hasMedia: false } });
    expect(res.body._data).toMatchObject({ type: 'buttons_response', selectedButtonId: 'good' });
    await expectSendEvents(ctx.tap, res.body);
  });
});

const LIST = {
  title: 'Simple Menu',
  description: 'Please choose an option',
  footer: 'Thank you!',
  button: 'Choose',
  sections: [
    {
      title: 'Main',
      rows: [
        { title: 'Option 1', rowId: 'option1', description: null },
        { title: 'Option 2', rowId: 'option2' },
      ],
    },
  ],
};

describe('4.5 POST /api/sendList', () => {
  it('answers 201 with the record: the description as body, the list in _data', async () => {
    const res = await send('/api/sendList', { message: LIST, reply_to: `false_${PEER}_ASKED1` });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ body: 'Please choose an option', replyTo: { id: `false_${PEER}_ASKED1` } });
    expect(res.body._data).toMatchObject({ type: 'list', list: { button: 'Choose', sections: [{ title: 'Main' }] } });
    await expectSendEvents(ctx.tap, res.body);
  });

  it('takes at most 10 rows in all, with different row ids', async () => {
    const rows = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => ({ title: `Row ${i}`, rowId: `${prefix}${i}` }));
    const tooMany = await send('/api/sendList', {
      message: {
        ...LIST,
        sections: [
          { title: 'A', rows: rows('a', 6) },
          { title: 'B', rows: rows('b', 5) },
        ],
      },
    });
    expect(tooMany.status).toBe(400);
    expect(fieldsOf(tooMany.body)).toEqual(['body.message.sections']);
    const same = await send('/api/sendList', {
      message: {
        ...LIST,
        sections: [
          { title: 'A', rows: rows('x', 2) },
          { title: 'B', rows: rows('x', 1) },
        ],
      },
    });
    expect(fieldsOf(same.body)).toEqual(['body.message.sections[1].rows[0].rowId']);
  });
});

describe('4.5 POST /api/sendPoll and /api/sendPollVote', () => {
  const poll = { name: 'How are you?', options: ['Awesome!', 'Good!', 'Not bad!'], multipleAnswers: false };

  it('a poll answers 201 with the record, the poll in _data', async () => {
    const res = await send('/api/sendPoll', { poll, id: 'POLL00000001' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id: `true_${PEER}_POLL00000001`, body: 'How are you?' });
    expect(res.body._data).toMatchObject({ type: 'poll_creation', poll });
    await expectSendEvents(ctx.tap, res.body);
  });

  it('a vote answers 201 with the vote and gives poll.vote, from you', async () => {
    const pollId = (await send('/api/sendPoll', { poll })).body.id;
    const res = await send('/api/sendPollVote', { pollMessageId: pollId, votes: ['Good!'] });
    expect(res.status).toBe(201);
    expect(res.body.poll).toEqual({ id: pollId, to: PEER, from: ctx.tap.me, fromMe: true });
    expect(res.body.vote).toMatchObject({ to: PEER, from: ctx.tap.me, fromMe: true, selectedOptions: ['Good!'] });
    const event = await ctx.tap.delivered('poll.vote', (payload) => payload.poll.id === pollId);
    expect(event.payload).toEqual(res.body);
  });

  it('votes must be options of the poll, one unless multipleAnswers', async () => {
    const pollId = (await send('/api/sendPoll', { poll })).body.id;
    const unknown = await send('/api/sendPollVote', { pollMessageId: pollId, votes: ['Great'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.details).toEqual([{ path: 'body.votes', reason: '"Great" is not an option of the poll' }]);
    const two = await send('/api/sendPollVote', { pollMessageId: pollId, votes: ['Good!', 'Awesome!'] });
    expect(fieldsOf(two.body)).toEqual(['body.votes']);
    const multi = (await send('/api/sendPoll', { poll: { ...poll, multipleAnswers: true } })).body.id;
    expect((await send('/api/sendPollVote', { pollMessageId: multi, votes: ['Good!', 'Awesome!'] })).status).toBe(201);
  });

  it('a vote on a message the session does not know is a 404; one of another chat a 400', async () => {
    const unknown = await send('/api/sendPollVote', { pollMessageId: `false_${PEER}_NOPOLL1`, votes: [] });
    expect(unknown.status).toBe(404);
    const elsewhere = await send('/api/sendPollVote', { pollMessageId: `false_${GROUP}_POLL1`, votes: [] });
    expect(elsewhere.status).toBe(400);
    expect(fieldsOf(elsewhere.body)).toEqual(['body.pollMessageId']);
  });

  it('a poll takes 2 to 12 different options', async () => {
    const one = await send('/api/sendPoll', { poll: { name: 'q', options: ['only'] } });
    expect(fieldsOf(one.body)).toEqual(['body.poll.options']);
    const same = await send('/api/sendPoll', { poll: { name: 'q', options: ['a', 'a'] } });
    expect(fieldsOf(same.body)).toEqual(['body.poll.options']);
  });
});

describe('4.5 POST /api/sendLocation', () => {
  it('answers 201 with the record carrying location', async () => {
    const res = await send('/api/sendLocation', { latitude: 38.8937255, longitude: -77.0969763, title: 'Our office' });
    expect(res.status).toBe(201);
    expect(res.body.location).toEqual({
      latitude: '38.8937255',
      longitude: '-77.0969763',
      live: false,
      name: 'Our office',
      description: 'Our office',
    });
    expect(res.body._data).toMatchObject({ type: 'location', latitude: 38.8937255, longitude: -77.0969763 });
    await expectSendEvents(ctx.tap, res.body);
  });

  it('latitude and longitude must be on Earth', async () => {
    const res = await send('/api/sendLocation', { latitude: 91, longitude: -181, title: 'x' });
    expect(fieldsOf(res.body).sort()).toEqual(['body.latitude', 'body.longitude']);
  });
});

describe('4.5 POST /api/sendContactVcard', () => {
  it('answers 201 with the record: vCards built from fields or given as they are', async () => {
    const vcard = 'BEGIN:VCARD\nVERSION:3.0\nFN:Jane Doe\nTEL;type=CELL;type=VOICE;waid=911111111111:+91 11111 11111\nEND:VCARD';
    const res = await send('/api/sendContactVcard', {
      contacts: [{ vcard }, { fullName: 'John; Doe', organization: 'Company', phoneNumber: '+1 555 000 1111' }],
    });
    expect(res.status).toBe(201);
    expect(res.body.vCards).toEqual([
      vcard,
      'BEGIN:VCARD\nVERSION:3.0\nFN:John\\; Doe\nORG:Company;\nTEL;type=CELL;type=VOICE;waid=15550001111:+1 555 000 1111\nEND:VCARD',
    ]);
    expect(res.body._data.type).toBe('multi_vcard');
    await expectSendEvents(ctx.tap, res.body);
  });

  it('one card is a vcard message whose body is the card', async () => {
    const res = await send('/api/sendContactVcard', { contacts: [{ fullName: 'Ann', phoneNumber: '15550002222', whatsappId: '15550002222' }] });
    expect(res.body._data.type).toBe('vcard');
    expect(res.body.body).toBe(res.body.vCards[0]);
  });

  it('a contact needs a vcard, or fullName and phoneNumber', async () => {
    const res = await send('/api/sendContactVcard', { contacts: [{ organization: 'Company' }] });
    expect(res.status).toBe(400);
    expect(fieldsOf(res.body)).toEqual(['body.contacts[0].fullName', 'body.contacts[0].phoneNumber']);
  });
});
