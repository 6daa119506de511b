import { MyProfile, PollVotePayload } from '@switchboard/protocol';
import { describe, expect, it } from 'vitest';
import { ME } from './library-shapes.js';
import { expectValidEnvelopes, webjsSession } from './harness.js';

// The account's profile and poll votes on WEBJS: the client's getProfilePicUrl and Message.vote,
// the scripted client answering as the library does. Its name, About text and picture run through
// Chromium (browser-contacts.test.ts).

const PEER = '15551234567@c.us';

async function working() {
  const s = webjsSession();
  await s.working();
  const run = <T>(command: Parameters<typeof s.host.execute>[0]) => s.host.execute(command) as Promise<T>;
  const argsOf = (call: string) => s.client.args[s.client.calls.lastIndexOf(call)];
  return { ...s, run, argsOf };
}

describe('WEBJS profile', () => {
  it('get: the account, its name and its picture (getProfilePicUrl of its own id)', async () => {
    const s = await working();
    expect(MyProfile.parse(await s.run({ op: 'profile.get' }))).toEqual({ id: ME, name: 'Switchboard Test', picture: null });
    s.client.pictures.set(ME, 'https://pps.whatsapp.net/v/t61/me.jpg');
    expect(await s.run({ op: 'profile.get' })).toMatchObject({ picture: 'https://pps.whatsapp.net/v/t61/me.jpg' });
  });
});

describe('WEBJS poll votes', () => {
  it('Message.vote with the option names; the vote the browser records is the answer and one poll.vote', async () => {
    const s = await working();
    const poll = await s.run<{ id: string }>({
      op: 'send.poll',
      args: { chatId: PEER, poll: { name: 'Lunch?', options: ['Pizza', 'Sushi', 'Salad'], multipleAnswers: true } },
    });
    const payload = await s.run<PollVotePayload>({ op: 'send.pollVote', args: { chatId: PEER, pollMessageId: poll.id, votes: ['Sushi', 'Salad'] } });
    expect(s.argsOf(`vote ${poll.id}`)).toEqual([['Sushi', 'Salad']]);
    expect(PollVotePayload.parse(payload)).toMatchObject({
      vote: { from: ME, fromMe: true, selectedOptions: ['Sushi', 'Salad'] },
      poll: { id: poll.id, fromMe: true },
    });
    expect(s.payloads('poll.vote')).toEqual([payload]);
    expectValidEnvelopes(s.events, s.dropped);
  });

  it('an option the poll lacks, several on a one-answer poll, or no poll: a 400 naming the field', async () => {
    const s = await working();
    const poll = await s.run<{ id: string }>({
      op: 'send.poll',
      args: { chatId: PEER, poll: { name: 'Lunch?', options: ['Pizza', 'Sushi'], multipleAnswers: false } },
    });
    const text = await s.run<{ id: string }>({
      op: 'send.text',
      args: { chatId: PEER, text: 'hi', linkPreview: false, linkPreviewHighQuality: false } as never,
    });
    const vote = (pollMessageId: string, votes: string[]) => s.run({ op: 'send.pollVote', args: { chatId: PEER, pollMessageId, votes } });
    await expect(vote(poll.id, ['Tacos'])).rejects.toMatchObject({ code: 'INVALID', details: [{ path: 'body.votes' }] });
    await expect(vote(poll.id, ['Pizza', 'Sushi'])).rejects.toMatchObject({ code: 'INVALID', details: [{ path: 'body.votes' }] });
    await expect(vote(text.id, ['Pizza'])).rejects.toMatchObject({ code: 'INVALID', details: [{ path: 'body.pollMessageId' }] });
    expect(s.client.calls.filter((call) => call.startsWith('vote '))).toEqual([]);
  });
});
