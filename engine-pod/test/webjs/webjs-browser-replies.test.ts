// Replies through Chromium: whatsapp-web.js's sendMessage with `quotedMessageId` asks WhatsApp Web
// whether the message can be replied to (WAWebMsgReply) before it quotes it. What the servers got
// is checked on the fake's side.
import type { MessageRecord } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { describe, expect, it } from 'vitest';
import { pairedSuite, pairedWebjs } from './paired-webjs.js';

const ME = { id: '15550001818@c.us', pushName: 'Reply Tests' };
const ADA = '15551118881@c.us';

describe('WEBJS replies through Chromium', () => {
  const session = pairedSuite(pairedWebjs, 'replies', ME);
  const { payloads, run } = session;

  /** A message from Ada, once the engine has it: its id in the API and its own id. */
  async function received(body: string) {
    const own = session.phone.text(ADA, body);
    const id = `false_${ADA}_${own}`;
    await waitFor(() => payloads('message').some((p) => p.id === id), `${body} to arrive`);
    return { id, own };
  }

  /** What the page sent for the record. */
  const sent = (record: MessageRecord) =>
    waitFor(() => session.phone.sentTo(ADA).find((msg) => `true_${ADA}_${msg.id.id}` === record.id), `the page to send ${record.id}`);

  it('a reply quotes the message: the servers get the quoted message`s id', async () => {
    const { id, own } = await received('lunch?');
    const record = await run<MessageRecord>({ op: 'send.text', args: { chatId: ADA, text: 'yes', linkPreview: false, reply_to: id } });
    expect(await sent(record)).toMatchObject({ body: 'yes', quotedStanzaID: own });
  });

  it('a reply to a message its sender revoked goes out unquoted: WhatsApp Web cannot quote it', async () => {
    const { id } = await received('oops');
    session.phone.change('revoke', { id, by: ADA });
    await waitFor(() => payloads('message.revoked').some((p) => p.revokedMessageId === id.split('_').at(-1)), 'the revoke to arrive');
    const record = await run<MessageRecord>({ op: 'send.text', args: { chatId: ADA, text: 'what was it?', linkPreview: false, reply_to: id } });
    const message = await sent(record);
    expect(message.body).toBe('what was it?');
    expect(message.quotedStanzaID).toBeUndefined();
  });
});
