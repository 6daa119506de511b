// Labels through Chromium (a WhatsApp Business account): whatsapp-web.js's own label code on the
// fake WhatsApp Web, whose backend keeps the labels and the chats they are on.
import type { EventName, Label } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineHost, HostedEvent } from '../../src/index.js';
import type { FakeWebPhone } from '../fake-web/index.js';
import { type PairedWebjs, pairedWebjs } from './paired-webjs.js';

const ME = { id: '15550001313@c.us', pushName: 'Labels Tests', platform: 'smba' };
const CUSTOMER = '15555550001@c.us';

describe('WEBJS labels through Chromium', () => {
  let host: EngineHost;
  let phone: FakeWebPhone;
  let session: PairedWebjs | undefined;
  const events: HostedEvent[] = [];
  const payloads = (name: EventName) => events.filter((e) => e.envelope.event === name).map((e) => e.envelope.payload);

  beforeAll(async () => {
    session = await pairedWebjs('labels', ME, (event) => events.push(event));
    ({ host, phone } = session);
  });
  afterAll(() => session?.close());

  it("a business account's name is its business's: renaming it is WRONG_STATUS, and the servers are asked nothing", async () => {
    await expect(host.execute({ op: 'profile.setName', args: { name: 'Another name' } })).rejects.toMatchObject({ code: 'WRONG_STATUS' });
    expect(phone.names).toEqual([]);
  });

  it('lists the labels made on the phone, with their colours', async () => {
    phone.labels.define([
      { id: '1', name: 'New customer', hexColor: '#ff9485' },
      { id: '2', name: 'Paid', hexColor: '#64c4ff' },
    ]);
    const labels = await waitFor(async () => {
      const listed = await host.execute({ op: 'labels.list' });
      return (listed as Label[]).length === 2 ? (listed as Label[]) : null;
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
    expect(((await host.execute({ op: 'labels.ofChat', args: { chatId: CUSTOMER } })) as Label[]).map((l) => l.id)).toEqual(['1']);
    expect(await host.execute({ op: 'labels.chats', args: { id: '1' } })).toEqual([{ id: CUSTOMER }]);

    await host.execute({ op: 'labels.setForChat', args: { chatId: CUSTOMER, labels: [{ id: '2' }] } });
    expect({ one: phone.labels.chatsOf('1'), two: phone.labels.chatsOf('2') }).toEqual({ one: [], two: [CUSTOMER] });
    expect(((await host.execute({ op: 'labels.ofChat', args: { chatId: CUSTOMER } })) as Label[]).map((l) => l.id)).toEqual(['2']);
    expect(payloads('label.chat.added').map((p) => p.labelId)).toEqual(['1', '2']);
    expect(payloads('label.chat.deleted').map((p) => p.labelId)).toEqual(['1']);
  });
});
