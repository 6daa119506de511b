// WPP's actions on messages through Chromium on the fake WhatsApp Web: WPPConnect and its wa-js,
// unmodified, react, edit, revoke, forward, star and pin, and report what the contact's phone does to
// messages (reactions, edits, revokes) as WEBJS does.
import type { MessageRecord } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { describe, expect, it } from 'vitest';
import { pairedSuite, pairedWpp } from '../webjs/paired-webjs.js';

const ME = '15550007171@c.us';
const CONTACT = '15550003434@c.us';

describe('WPP actions on messages through Chromium', () => {
  const session = pairedSuite(pairedWpp, 'wpp-messages', { id: ME, pushName: 'Messages' });
  const { payloads, run } = session;
  const execute = (op: string, args: Record<string, unknown>) => run({ op, args } as Parameters<typeof run>[0]);
  const send = async (text: string) => (await execute('send.text', { chatId: CONTACT, text })) as MessageRecord;
  /** A text from the contact, once the engine reported it; answers its record id. */
  const received = async (text: string) => {
    const id = `false_${CONTACT}_${session.phone.text(CONTACT, text)}`;
    await waitFor(() => payloads('message').some((p) => p.id === id), `message ${id}`);
    return id;
  };

  it('reacts: the servers told, message.reaction (api) once with the reaction own id, and the answer is that payload', async () => {
    const target = await received('react to me');
    const payload = (await execute('message.react', { messageId: target, reaction: '👍' })) as Record<string, unknown>;
    expect(session.phone.actions).toContainEqual(expect.objectContaining({ type: 'react', msgId: target, reaction: '👍' }));
    expect(payload).toMatchObject({
      fromMe: true,
      source: 'api',
      from: ME,
      to: CONTACT,
      participant: null,
      reaction: { text: '👍', messageId: target },
    });
    expect(payload.id).toMatch(new RegExp(`^true_${CONTACT}_\\w+$`));
    // The page's own report of the reaction is the same one: not emitted again as the phone's.
    await waitFor(() => payloads('message.reaction').length > 0, 'message.reaction');
    expect(payloads('message.reaction').filter((p) => (p.reaction as { messageId: string }).messageId === target)).toEqual([payload]);
  });

  it("the contact's reaction is message.reaction (app) from the contact", async () => {
    const target = await send('react to this');
    const id = `false_${CONTACT}_3EB0WPPREACT01`;
    session.phone.change('reaction', { id, parent: target.id, sender: CONTACT, text: '❤️' });
    const reaction = await waitFor(() => payloads('message.reaction').find((p) => p.id === id), 'the contact reaction');
    expect(reaction).toMatchObject({ fromMe: false, source: 'app', from: CONTACT, to: ME, reaction: { text: '❤️', messageId: target.id } });
  });

  it('edits an own text: the servers told, message.edited with the new body; a message it cannot edit is a 4xx INVALID', async () => {
    const sent = await send('before the edit');
    const key = sent.id.split('_').at(-1)!;
    await execute('message.edit', { chatId: CONTACT, messageId: sent.id, text: 'after the edit', linkPreview: false });
    expect(session.phone.actions).toContainEqual(expect.objectContaining({ type: 'edit', msgId: sent.id, body: 'after the edit' }));
    const edited = await waitFor(() => payloads('message.edited').find((p) => p.editedMessageId === key), 'message.edited');
    expect(edited).toMatchObject({ body: 'after the edit', fromMe: true });
    expect(edited.id).not.toBe(sent.id);
    const theirs = await received('not yours to edit');
    await expect(execute('message.edit', { chatId: CONTACT, messageId: theirs, text: 'mine now', linkPreview: false })).rejects.toMatchObject({
      code: 'INVALID',
    });
  });

  it("the contact's edit is message.edited", async () => {
    const target = await received('typo hree');
    session.phone.change('edit', { id: target, body: 'typo here' });
    const edited = await waitFor(() => payloads('message.edited').find((p) => p.body === 'typo here'), 'message.edited');
    expect(edited).toMatchObject({ editedMessageId: target.split('_').at(-1), fromMe: false, from: CONTACT });
  });

  it('deletes an own message for everyone: the servers told to revoke it, message.revoked with it before and after', async () => {
    const sent = await send('regret this');
    await execute('message.delete', { chatId: CONTACT, messageId: sent.id });
    expect(session.phone.actions).toContainEqual({ type: 'revoke', msgId: sent.id });
    const revoked = await waitFor(() => payloads('message.revoked').find((p) => p.revokedMessageId === sent.id.split('_').at(-1)), 'message.revoked');
    expect(revoked.before).toMatchObject({ id: sent.id, body: 'regret this' });
    expect(revoked.after).toMatchObject({ body: '' });
  });

  it("the contact's revoke is message.revoked naming the message", async () => {
    const target = await received('about to vanish');
    session.phone.change('revoke', { id: target, by: CONTACT });
    const revoked = await waitFor(() => payloads('message.revoked').find((p) => p.revokedMessageId === target.split('_').at(-1)), 'message.revoked');
    const after = revoked.after as { id: string };
    expect(after.id).toMatch(new RegExp(`^false_${CONTACT}_`));
    expect(after.id).not.toBe(target);
  });

  it('forwards: the copy sent to the other chat is answered (api, forwarded) and message.any (api) once', async () => {
    const original = await received('pass it on');
    const other = '15550005656@c.us';
    const copy = (await execute('message.forward', { chatId: other, messageId: original })) as MessageRecord;
    expect(copy).toMatchObject({ fromMe: true, source: 'api', to: other, body: 'pass it on' });
    expect(copy.id).toMatch(new RegExp(`^true_${other}_\\w+$`));
    expect(session.phone.sentTo(other).map((m) => [m.body, m.isForwarded])).toEqual([['pass it on', true]]);
    await waitFor(() => payloads('message.any').some((p) => p.id === copy.id), 'message.any of the copy');
    expect(payloads('message.any').filter((p) => p.id === copy.id)).toEqual([copy]);
  });

  it('pins for one of the durations WhatsApp offers and unpins: the servers told each; pinning a pinned message again is done already', async () => {
    const target = await received('pin me');
    await execute('message.pin', { chatId: CONTACT, messageId: target, duration: 86_400 });
    await execute('message.pin', { chatId: CONTACT, messageId: target, duration: 86_400 });
    await execute('message.pin', { chatId: CONTACT, messageId: target, duration: null });
    expect(session.phone.pins.filter((p) => p.msgId === target)).toEqual([
      { msgId: target, pin: true, duration: 86_400 },
      { msgId: target, pin: false, duration: 0 },
    ]);
  });

  it('an action on a message the page does not have is NOT_FOUND naming it', async () => {
    const unknown = `false_${CONTACT}_0000000000AAAAAA`;
    for (const [op, args] of [
      ['message.forward', { chatId: CONTACT, messageId: unknown }],
      ['message.react', { messageId: unknown, reaction: '👍' }],
      ['message.edit', { chatId: CONTACT, messageId: unknown, text: 'x', linkPreview: false }],
      ['message.delete', { chatId: CONTACT, messageId: unknown }],
      ['message.star', { chatId: CONTACT, messageId: unknown, star: true }],
      ['message.pin', { chatId: CONTACT, messageId: unknown, duration: 604_800 }],
    ] as const) {
      await expect(execute(op, args), op).rejects.toMatchObject({ code: 'NOT_FOUND', details: { messageId: unknown } });
    }
  });

  it('stars and unstars: the servers told each; starring a starred message again is done already', async () => {
    const target = await received('a keeper');
    await execute('message.star', { chatId: CONTACT, messageId: target, star: true });
    await execute('message.star', { chatId: CONTACT, messageId: target, star: true });
    await execute('message.star', { chatId: CONTACT, messageId: target, star: false });
    expect(session.phone.actions.filter((a) => a.type === 'star' && a.msgId === target)).toEqual([
      { type: 'star', msgId: target, star: true },
      { type: 'star', msgId: target, star: false },
    ]);
  });

  describe('contact cards and polls', () => {
    const ADA = 'BEGIN:VCARD\nVERSION:3.0\nFN:Ada Lovelace\nTEL;type=CELL;type=VOICE;waid=442079460000:+44 20 7946 0000\nEND:VCARD';
    const ALAN = 'BEGIN:VCARD\nVERSION:3.0\nFN:Alan Turing\nTEL;type=CELL;type=VOICE;waid=441614960000:+44 161 496 0000\nEND:VCARD';

    it('sends a contact card as given: body and vCards the card, the servers told', async () => {
      const record = (await execute('send.contactVcard', { chatId: CONTACT, contacts: [{ vcard: ADA }] })) as MessageRecord;
      expect(record).toMatchObject({ fromMe: true, source: 'api', to: CONTACT, body: ADA, vCards: [ADA], hasMedia: false });
      expect(session.phone.sentTo(CONTACT).at(-1)).toMatchObject({ type: 'vcard', body: ADA, vcardFormattedName: 'Ada Lovelace' });
    });

    it('sends several cards in one message (multi_vcard)', async () => {
      const record = (await execute('send.contactVcard', { chatId: CONTACT, contacts: [{ vcard: ADA }, { vcard: ALAN }] })) as MessageRecord;
      expect(record.vCards).toEqual([ADA, ALAN]);
      expect(session.phone.sentTo(CONTACT).at(-1)).toMatchObject({ type: 'multi_vcard' });
    });

    it('sends a poll: body the question, the options and how many answers it takes as the servers were told', async () => {
      const poll = (await execute('send.poll', {
        chatId: CONTACT,
        poll: { name: 'lunch?', options: ['Pizza', 'Sushi'], multipleAnswers: false },
      })) as MessageRecord;
      expect(poll).toMatchObject({ fromMe: true, source: 'api', to: CONTACT, body: 'lunch?' });
      expect(session.phone.sentTo(CONTACT).at(-1)).toMatchObject({
        type: 'poll_creation',
        pollName: 'lunch?',
        pollOptions: [
          { name: 'Pizza', localId: 0 },
          { name: 'Sushi', localId: 1 },
        ],
        pollSelectableOptionsCount: 1,
      });
      await waitFor(() => payloads('message.any').some((p) => p.id === poll.id), 'message.any of the poll');
    });

    it("the contact's vote on the account's poll is poll.vote naming the options chosen", async () => {
      const poll = (await execute('send.poll', {
        chatId: CONTACT,
        poll: { name: 'where?', options: ['Here', 'There', 'Anywhere'], multipleAnswers: true },
      })) as MessageRecord;
      session.phone.change('vote', { id: `false_${CONTACT}_3EB0WPPVOTE01`, parent: poll.id, sender: CONTACT, localIds: [0, 2] });
      const vote = await waitFor(() => payloads('poll.vote').find((p) => (p.poll as { id: string }).id === poll.id), 'poll.vote');
      expect(vote).toMatchObject({
        vote: { from: CONTACT, to: ME, fromMe: false, selectedOptions: ['Here', 'Anywhere'] },
        poll: { id: poll.id, fromMe: true, from: ME, to: CONTACT },
      });
    });

    it('received: a location, a contact card, several cards, a poll and a reply map as WEBJS maps them', async () => {
      const receivedOne = async (id: string) => waitFor(() => payloads('message').find((p) => p.id === `false_${CONTACT}_${id}`), `message ${id}`);
      const location = await receivedOne(
        session.phone.deliver(CONTACT, { type: 'location', lat: 48.8584, lng: 2.2945, loc: 'Tour Eiffel\nChamp de Mars' }),
      );
      expect(location).toMatchObject({
        body: '',
        location: { latitude: '48.8584', longitude: '2.2945', name: 'Tour Eiffel', address: 'Champ de Mars' },
      });
      const card = await receivedOne(session.phone.deliver(CONTACT, { type: 'vcard', body: ADA }));
      expect(card).toMatchObject({ body: ADA, vCards: [ADA] });
      const cards = await receivedOne(
        session.phone.deliver(CONTACT, {
          type: 'multi_vcard',
          vcardList: [
            { displayName: 'Ada Lovelace', vcard: ADA },
            { displayName: 'Alan Turing', vcard: ALAN },
          ],
        }),
      );
      expect(cards.vCards).toEqual([ADA, ALAN]);
      const poll = await receivedOne(
        session.phone.deliver(CONTACT, {
          type: 'poll_creation',
          pollName: 'dinner?',
          pollOptions: [{ name: 'Yes', localId: 0 }],
          pollSelectableOptionsCount: 1,
        }),
      );
      expect(poll).toMatchObject({ body: 'dinner?', hasMedia: false });
      const first = session.phone.text(CONTACT, 'the original');
      await receivedOne(first);
      const reply = await receivedOne(
        session.phone.deliver(CONTACT, {
          type: 'chat',
          body: 'the answer',
          quotedMsg: { type: 'chat', body: 'the original' },
          quotedStanzaID: first,
          quotedParticipant: CONTACT,
        }),
      );
      expect(reply.replyTo).toMatchObject({ id: first, participant: CONTACT, body: 'the original', hasMedia: false });
    });
  });
});
