import { Label, LabelChatPayload } from '@switchboard/protocol';
import { describe, expect, it } from 'vitest';
import { expectValidEnvelopes, webjsSession } from './harness.js';

// Chat labels on WEBJS (WhatsApp Business): getLabels, getChatLabels, getChatsByLabelId and
// addOrRemoveLabels, the scripted client answering with the library's Label structures.

const PEER = '15551234567@c.us';

async function working() {
  const s = webjsSession();
  await s.working();
  s.client.labelData.push(
    { id: '1', name: 'New customer', hexColor: '#ff9485', colorIndex: 0 },
    { id: '5', name: 'Paid', hexColor: '#64c4ff', colorIndex: 1 },
  );
  s.client.chatLabelIds.set(PEER, ['1']);
  const run = <T>(command: Parameters<typeof s.host.execute>[0]) => s.host.execute(command) as Promise<T>;
  return { ...s, run };
}

describe('WEBJS labels', () => {
  it('list, of a chat, chats of a label: the library labels as spec 2.9 has them', async () => {
    const s = await working();
    const labels = await s.run<Label[]>({ op: 'labels.list' });
    expect(labels.map((label) => Label.parse(label))).toEqual([
      { id: '1', name: 'New customer', color: 0, colorHex: '#ff9485' },
      { id: '5', name: 'Paid', color: 1, colorHex: '#64c4ff' },
    ]);
    expect(await s.run({ op: 'labels.ofChat', args: { chatId: PEER } })).toEqual([labels[0]]);
    expect(await s.run({ op: 'labels.chats', args: { id: '1' } })).toEqual([{ id: PEER }]);
  });

  it('set for a chat: addOrRemoveLabels with exactly those labels, and a label.chat event for each one put on or taken off', async () => {
    const s = await working();
    await s.run({ op: 'labels.setForChat', args: { chatId: PEER, labels: [{ id: '5' }] } });
    expect(s.client.args[s.client.calls.lastIndexOf('addOrRemoveLabels')]).toEqual([['5'], [PEER]]);
    expect(s.named('label.chat.deleted').map((event) => LabelChatPayload.parse(event.payload))).toMatchObject([{ labelId: '1', chatId: PEER }]);
    expect(s.named('label.chat.added').map((event) => LabelChatPayload.parse(event.payload))).toMatchObject([
      { labelId: '5', chatId: PEER, label: { name: 'Paid' } },
    ]);
    expectValidEnvelopes(s.events, s.dropped);
  });

  it('a label the account does not have is a 400 naming it; a personal account gets the library’s refusal', async () => {
    const s = await working();
    await expect(s.run({ op: 'labels.setForChat', args: { chatId: PEER, labels: [{ id: '9' }] } })).rejects.toMatchObject({ code: 'INVALID' });
    s.client.business = false;
    await expect(s.run({ op: 'labels.setForChat', args: { chatId: PEER, labels: [{ id: '5' }] } })).rejects.toMatchObject({
      code: 'ENGINE_ERROR',
      message: expect.stringContaining('Only Whatsapp business'),
    });
  });
});
