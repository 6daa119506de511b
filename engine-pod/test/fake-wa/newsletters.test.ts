import { type BinaryNode, getBinaryNodeChild, getBinaryNodeChildren, proto } from '@whiskeysockets/baileys';
import { describe, expect, it } from 'vitest';
import type { IqAnswer } from './iq-answers.js';
import { FakeNewsletters } from './newsletters.js';

/**
 * The fake server's channels (newsletters.ts) on their own: the service's rules the NOWEB and GOWS
 * tests (engine-pod/test/noweb/channels.test.ts, engine-pod/test/gows/channels.test.ts) reach only
 * through a client: who may delete or change a channel, the errors' codes, unknown query ids.
 */
const OWNER = '15550001111';
const READER = '15550002222';

function mex(queryId: string, variables: Record<string, unknown>): BinaryNode {
  return {
    tag: 'iq',
    attrs: { xmlns: 'w:mex', type: 'get', to: 's.whatsapp.net' },
    content: [{ tag: 'query', attrs: { query_id: queryId }, content: Buffer.from(JSON.stringify({ variables })) }],
  };
}

/** The GraphQL body of an answer's `result`. */
function body(answer: IqAnswer): { data?: Record<string, any> | null; errors?: { extensions: { error_code: number } }[] } {
  if (!answer || !('content' in answer)) throw new Error(`not a result: ${JSON.stringify(answer)}`);
  const result = getBinaryNodeChild({ tag: 'iq', attrs: {}, content: answer.content }, 'result');
  return JSON.parse(Buffer.from(result?.content as Uint8Array).toString()) as never;
}

const CREATE = '8823471724422422';
const METADATA = '6563316087068696';
const DELETE = '30062808666639665';
const UPDATE = '24250201037901610';
const SUBSCRIBED = '6388546374527196';

describe('fake-wa channels', () => {
  it('create answers the metadata both clients parse, the creator its OWNER; others see it as GUESTs', () => {
    const news = new FakeNewsletters();
    const made = body(news.answerMex(OWNER, mex(CREATE, { input: { name: 'Tides', description: null } }))).data?.xwa2_newsletter_create;
    expect(made).toMatchObject({
      id: expect.stringMatching(/^\d+@newsletter$/),
      state: { type: 'ACTIVE' },
      thread_metadata: { name: { text: 'Tides' }, description: { text: '' }, subscribers_count: '0', verification: 'UNVERIFIED' },
      viewer_metadata: { role: 'OWNER', mute: 'OFF' },
    });
    const read = body(news.answerMex(READER, mex(METADATA, { input: { key: made.thread_metadata.invite, type: 'INVITE' } }))).data?.xwa2_newsletter;
    expect(read).toMatchObject({ id: made.id, viewer_metadata: { role: 'GUEST' } });
    expect(body(news.answerMex(READER, mex(SUBSCRIBED, {}))).data?.xwa2_newsletter_subscribed).toEqual([]);
    expect(body(news.answerMex(OWNER, mex(SUBSCRIBED, {}))).data?.xwa2_newsletter_subscribed).toHaveLength(1);
  });

  it('only the owner deletes or changes a channel (403); an unknown or deleted one is 404; an unknown query id is not answered', () => {
    const news = new FakeNewsletters();
    const channel = news.add({ name: 'Tides', owner: OWNER });
    const code = (answer: IqAnswer) => body(answer).errors?.[0]?.extensions.error_code;
    expect(code(news.answerMex(READER, mex(DELETE, { newsletter_id: channel.id })))).toBe(403);
    expect(code(news.answerMex(READER, mex(UPDATE, { newsletter_id: channel.id, updates: { name: 'Mine now' } })))).toBe(403);
    expect(channel.name).toBe('Tides');
    expect(body(news.answerMex(OWNER, mex(DELETE, { newsletter_id: channel.id }))).data?.xwa2_newsletter_delete_v2).toMatchObject({ id: channel.id });
    expect(code(news.answerMex(OWNER, mex(METADATA, { input: { key: channel.id, type: 'JID' } })))).toBe(404);
    expect(code(news.answerMex(OWNER, mex(DELETE, { newsletter_id: channel.id })))).toBe(404);
    expect(news.answerMex(OWNER, mex('1', {}))).toBeNull();
  });

  it('posts: the newest `count`, as `message_updates` to the channel (Baileys) or `messages` naming it to the server (whatsmeow)', () => {
    const news = new FakeNewsletters();
    const channel = news.add({ name: 'Tides' });
    news.post(channel.id, 'one', { views: 3, reactions: { '👍': 2 } });
    news.post(channel.id, 'two');
    const posts = (list: BinaryNode | undefined) =>
      getBinaryNodeChildren(list, 'message').map((m) => [
        proto.Message.decode(getBinaryNodeChild(m, 'plaintext')?.content as Uint8Array).conversation,
        getBinaryNodeChild(m, 'views_count')?.attrs.count,
        getBinaryNodeChildren(getBinaryNodeChild(m, 'reactions'), 'reaction').map((r) => r.attrs),
      ]);
    const answer = (iq: BinaryNode) => {
      const result = news.answerNewsletterIq(iq);
      return result && 'content' in result ? { tag: 'iq', attrs: {}, content: result.content } : undefined;
    };
    const updates = answer({
      tag: 'iq',
      attrs: { xmlns: 'newsletter', to: channel.id },
      content: [{ tag: 'message_updates', attrs: { count: '1' } }],
    });
    expect(posts(getBinaryNodeChild(getBinaryNodeChild(updates, 'message_updates'), 'messages'))).toEqual([['two', '0', []]]);
    const named = answer({
      tag: 'iq',
      attrs: { xmlns: 'newsletter', to: 's.whatsapp.net' },
      content: [{ tag: 'messages', attrs: { type: 'jid', jid: channel.id, count: '5' } }],
    });
    expect(posts(getBinaryNodeChild(named, 'messages'))).toEqual([
      ['one', '3', [{ code: '👍', count: '2' }]],
      ['two', '0', []],
    ]);
    expect(
      news.answerNewsletterIq({ tag: 'iq', attrs: { xmlns: 'newsletter', to: '1@newsletter' }, content: [{ tag: 'message_updates', attrs: {} }] }),
    ).toEqual({
      error: { code: '404', text: 'item-not-found' },
    });
  });
  it('a post with a file is a `media` message whose plaintext names the unencrypted file (direct path, sha256, no mediaKey)', () => {
    const news = new FakeNewsletters();
    const channel = news.add({ name: 'Pictures' });
    news.post(channel.id, { imageMessage: { directPath: '/v/t62.7119-24/a.jpg', fileSha256: Buffer.alloc(32, 1), mimetype: 'image/jpeg' } });
    news.post(channel.id, 'words');
    const result = news.answerNewsletterIq({
      tag: 'iq',
      attrs: { xmlns: 'newsletter', to: channel.id },
      content: [{ tag: 'message_updates', attrs: {} }],
    });
    const list = getBinaryNodeChild({ tag: 'iq', attrs: {}, content: result && 'content' in result ? result.content : [] }, 'message_updates');
    const [image, text] = getBinaryNodeChildren(getBinaryNodeChild(list, 'messages'), 'message');
    expect([image?.attrs.type, text?.attrs.type]).toEqual(['media', 'text']);
    const part = proto.Message.decode(getBinaryNodeChild(image, 'plaintext')?.content as Uint8Array).imageMessage;
    expect(part).toMatchObject({ directPath: '/v/t62.7119-24/a.jpg', mimetype: 'image/jpeg' });
    expect(part?.mediaKey).toBeFalsy();
  });
});
