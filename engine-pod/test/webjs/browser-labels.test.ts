// Labels through Chromium (a WhatsApp Business account), for both browser engines on the fake
// WhatsApp Web, whose backend keeps the labels and the chats they are on: whatsapp-web.js's own
// label code, and WPPConnect's and wa-js's.
import type { Label } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { describe, expect, it } from 'vitest';
import { pairedSuite, pairedWebjs, pairedWpp } from './paired-webjs.js';

const ME = { id: '15550001313@c.us', pushName: 'Labels Tests', platform: 'smba' };
const CUSTOMER = '15555550001@c.us';

describe.each([
  ['WEBJS', pairedWebjs, { awaitsServers: true }],
  // wa-js answers the chat's labels the page has: the servers tell it once they have them.
  ['WPP', pairedWpp, { awaitsServers: false }],
] as const)('%s labels through Chromium', (engine, paired, { awaitsServers }) => {
  const session = pairedSuite(paired, 'labels', ME);
  const { payloads, run } = session;
  const ofChat = async () => (await run<Label[]>({ op: 'labels.ofChat', args: { chatId: CUSTOMER } })).map((l) => l.id);

  // Both ask WhatsApp Web (`Conn.canSetMyPushname`) first: whatsapp-web.js itself, WPP before WPPConnect's setProfileName.
  it("a business account's name is its business's: renaming it is WRONG_STATUS, and the servers are asked nothing", async () => {
    await expect(run({ op: 'profile.setName', args: { name: 'Another name' } })).rejects.toMatchObject({ code: 'WRONG_STATUS' });
    expect(session.phone.names).toEqual([]);
  });

  it('lists the labels made on the phone, with their colours', async () => {
    session.phone.labels.define([
      { id: '1', name: 'New customer', hexColor: '#ff9485' },
      { id: '2', name: 'Paid', hexColor: '#64c4ff' },
    ]);
    const labels = await waitFor(async () => {
      const listed = await run<Label[]>({ op: 'labels.list' });
      return listed.length === 2 ? listed : null;
    }, 'the two labels');
    expect(labels.map(({ id, name, colorHex }) => ({ id, name, colorHex }))).toEqual([
      { id: '1', name: 'New customer', colorHex: '#ff9485' },
      { id: '2', name: 'Paid', colorHex: '#64c4ff' },
    ]);
  });

  it("sets a chat's labels: the server has the chat under them, the API reads them back, label.chat.* events say what changed", async () => {
    const { phone } = session;
    phone.text(CUSTOMER, 'I would like to order');
    await waitFor(() => payloads('message').some((p) => p.from === CUSTOMER), 'the customer to write');
    await run({ op: 'labels.setForChat', args: { chatId: CUSTOMER, labels: [{ id: '1' }] } });
    expect(phone.labels.chatsOf('1')).toEqual([CUSTOMER]);
    if (!awaitsServers) await waitFor(async () => (await ofChat()).join() === '1', 'label 1 on the page');
    expect(await ofChat()).toEqual(['1']);
    expect(await run({ op: 'labels.chats', args: { id: '1' } })).toEqual([{ id: CUSTOMER }]);

    await run({ op: 'labels.setForChat', args: { chatId: CUSTOMER, labels: [{ id: '2' }] } });
    expect({ one: phone.labels.chatsOf('1'), two: phone.labels.chatsOf('2') }).toEqual({ one: [], two: [CUSTOMER] });
    if (!awaitsServers) await waitFor(async () => (await ofChat()).join() === '2', 'label 2 on the page');
    expect(await ofChat()).toEqual(['2']);
    expect(payloads('label.chat.added').map((p) => p.labelId)).toEqual(['1', '2']);
    expect(payloads('label.chat.deleted').map((p) => p.labelId)).toEqual(['1']);
  });

  it('a label the account does not have is INVALID, naming the field, and changes nothing', async () => {
    await expect(run({ op: 'labels.setForChat', args: { chatId: CUSTOMER, labels: [{ id: '9' }] } })).rejects.toMatchObject({
      code: 'INVALID',
      message: expect.stringContaining('labels[0].id'),
    });
    expect(session.phone.labels.chatsOf('2')).toEqual([CUSTOMER]);
  });
});
