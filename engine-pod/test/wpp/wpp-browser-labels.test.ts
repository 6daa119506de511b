// Labels on WPP through Chromium (a WhatsApp Business account): WPPConnect's and wa-js's own label
// code on the fake WhatsApp Web, whose backend keeps the labels and the chats they are on.
import type { EventName, Label } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineHost, HostedEvent } from '../../src/index.js';
import type { FakeWebPhone } from '../fake-web/index.js';
import { type PairedWebjs, pairedWpp } from '../webjs/paired-webjs.js';

const ME = { id: '15550002828@c.us', pushName: 'WPP Label Tests', platform: 'smba' };
const CUSTOMER = '15552828001@c.us';

describe('WPP labels through Chromium', () => {
  let host: EngineHost;
  let phone: FakeWebPhone;
  let session: PairedWebjs | undefined;
  const events: HostedEvent[] = [];
  const payloads = (name: EventName) => events.filter((e) => e.envelope.event === name).map((e) => e.envelope.payload);
  const ofChat = async () => ((await host.execute({ op: 'labels.ofChat', args: { chatId: CUSTOMER } })) as Label[]).map((l) => l.id);

  beforeAll(async () => {
    session = await pairedWpp('wpp-labels', ME, (event) => events.push(event));
    ({ host, phone } = session);
  });
  afterAll(() => session?.close());

  it('lists the labels made on the phone, with their colours', async () => {
    phone.labels.define([
      { id: '1', name: 'New customer', hexColor: '#ff9485' },
      { id: '2', name: 'Paid', hexColor: '#64c4ff' },
    ]);
    const labels = await waitFor(async () => {
      const listed = (await host.execute({ op: 'labels.list' })) as Label[];
      return listed.length === 2 ? listed : null;
    }, 'the two labels');
    expect(labels.map(({ id, name, colorHex }) => ({ id, name, colorHex }))).toEqual([
      { id: '1', name: 'New customer', colorHex: '#ff9485' },
      { id: '2', name: 'Paid', colorHex: '#64c4ff' },
    ]);
  });

  it("sets a chat's labels: the server has the chat under them, the API reads them back, label.chat.* events say what changed", async () => {
    phone.text(CUSTOMER, 'I would like to order');
    await waitFor(() => payloads('message').some((p) => p.from === CUSTOMER), 'the customer to write');
    await host.execute({ op: 'labels.setForChat', args: { chatId: CUSTOMER, labels: [{ id: '1' }] } });
    expect(phone.labels.chatsOf('1')).toEqual([CUSTOMER]);
    // The servers tell the page the chat's labels once they have them.
    await waitFor(async () => (await ofChat()).join() === '1', 'label 1 on the page');
    expect(await host.execute({ op: 'labels.chats', args: { id: '1' } })).toEqual([{ id: CUSTOMER }]);

    await host.execute({ op: 'labels.setForChat', args: { chatId: CUSTOMER, labels: [{ id: '2' }] } });
    expect({ one: phone.labels.chatsOf('1'), two: phone.labels.chatsOf('2') }).toEqual({ one: [], two: [CUSTOMER] });
    await waitFor(async () => (await ofChat()).join() === '2', 'label 2 on the page');
    expect(payloads('label.chat.added').map((p) => p.labelId)).toEqual(['1', '2']);
    expect(payloads('label.chat.deleted').map((p) => p.labelId)).toEqual(['1']);
  });

  it('a label the account does not have is INVALID, naming the field, and changes nothing', async () => {
    await expect(host.execute({ op: 'labels.setForChat', args: { chatId: CUSTOMER, labels: [{ id: '9' }] } })).rejects.toMatchObject({
      code: 'INVALID',
      message: expect.stringContaining('labels[0].id'),
    });
    expect(phone.labels.chatsOf('2')).toEqual([CUSTOMER]);
  });
});
