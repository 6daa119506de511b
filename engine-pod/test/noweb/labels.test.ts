import type { Label } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FakePhone } from '../fake-wa/index.js';
import { ALICE, NowebSession, pairedSessionForTests } from './harness.js';

// Labels on NOWEB (issue 16, spec 2.9, 6.2 label.*): each operation is an app state patch the
// unmodified Baileys uploads to the fake server, which decodes it (MACs checked) as the phone's
// server would; the events come from the library's own report of its patches.

const paired = pairedSessionForTests();
let s: NowebSession;
let phone: FakePhone;
const alice = `${ALICE}@c.us`;
const aliceJid = `${ALICE}@s.whatsapp.net`;
const BOB = '15551240001';
const bob = `${BOB}@c.us`;

beforeAll(() => {
  ({ s, phone } = paired);
});

const run = <T = unknown>(command: Parameters<NowebSession['host']['execute']>[0]) => s.host.execute(command) as Promise<T>;
/** The label mutations the client uploaded, as the server decoded them. */
/** The label.* events published after `since` (the library's own reports go out as engine.event too). */
const labelEvents = (since: number) =>
  s.events
    .slice(since)
    .filter((e) => e.envelope.event.startsWith('label.'))
    .map((e) => [e.envelope.event, e.envelope.payload]);
const uploaded = () => phone.appState.labelUploads();

describe('NOWEB labels: operations as app state patches, with their label.* events', () => {
  let lead: Label;
  let vip: Label;

  it('labels.create: a label_edit patch the server decodes, the label numbered from 1, and label.upsert', async () => {
    const since = s.events.length;
    lead = await run<Label>({ op: 'labels.create', args: { name: 'Lead', color: 1 } });
    expect(lead).toEqual({ id: '1', name: 'Lead', color: 1, colorHex: '#64c4ff' });
    vip = await run<Label>({ op: 'labels.create', args: { name: 'VIP', color: 3 } });
    expect(vip.id).toBe('2');
    expect((await uploaded()).map((u) => [u.index, u.action.labelEditAction?.name])).toEqual([
      [['label_edit', '1'], 'Lead'],
      [['label_edit', '2'], 'VIP'],
    ]);
    expect(s.payloads('label.upsert').slice(-2)).toEqual([lead, vip]);
    expect(labelEvents(since)).toHaveLength(2);
    expect(await run({ op: 'labels.list' })).toEqual([lead, vip]);
  });

  it('labels.update: the label changed in place, label.upsert once', async () => {
    const since = s.events.length;
    lead = await run<Label>({ op: 'labels.update', args: { id: '1', label: { name: 'Hot lead', color: 13 } } });
    expect(lead).toEqual({ id: '1', name: 'Hot lead', color: 13, colorHex: '#f64847' });
    expect(labelEvents(since)).toEqual([['label.upsert', lead]]);
    await expect(run({ op: 'labels.update', args: { id: '9', label: { name: 'x', color: 0 } } })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it("labels.setForChat: label_jid patches for what changes only; the chat's labels, the label's chats and label.chat.*", async () => {
    const since = s.events.length;
    await run({ op: 'labels.setForChat', args: { chatId: alice, labels: [{ id: '1' }, { id: '2' }] } });
    await run({ op: 'labels.setForChat', args: { chatId: bob, labels: [{ id: '1' }] } });
    expect(await run({ op: 'labels.ofChat', args: { chatId: alice } })).toEqual([lead, vip]);
    expect(await run({ op: 'labels.chats', args: { id: '1' } })).toEqual([{ id: alice }, { id: bob }]);
    expect(s.payloads('label.chat.added').slice(-3)).toEqual([
      { labelId: '1', chatId: alice, label: lead },
      { labelId: '2', chatId: alice, label: vip },
      { labelId: '1', chatId: bob, label: lead },
    ]);

    await run({ op: 'labels.setForChat', args: { chatId: alice, labels: [{ id: '2' }] } });
    expect(await run({ op: 'labels.ofChat', args: { chatId: alice } })).toEqual([vip]);
    expect(s.payloads('label.chat.deleted').at(-1)).toEqual({ labelId: '1', chatId: alice, label: lead });
    const jids = (await uploaded()).filter((u) => u.index[0] === 'label_jid');
    expect(jids.map((u) => [u.index[1], u.index[2], u.action.labelAssociationAction?.labeled])).toEqual([
      ['1', aliceJid, true],
      ['2', aliceJid, true],
      ['1', `${BOB}@s.whatsapp.net`, true],
      ['1', aliceJid, false],
    ]);
    expect(labelEvents(since).map(([event]) => event)).toEqual(['label.chat.added', 'label.chat.added', 'label.chat.added', 'label.chat.deleted']);
    await expect(run({ op: 'labels.setForChat', args: { chatId: alice, labels: [{ id: '9' }] } })).rejects.toMatchObject({
      code: 'INVALID',
      details: [{ path: 'body.labels[0].id' }],
    });
  });

  it("the phone's labels and labelling show in the lists too", async () => {
    await phone.label({ id: '5', name: 'From the phone', color: 0 });
    await phone.labelChat('5', ALICE, true);
    await s.waitForEvent('label.chat.added', (p) => p.labelId === '5');
    expect((await run<Label[]>({ op: 'labels.list' })).map((label) => label.id)).toEqual(['1', '2', '5']);
    expect((await run<Label[]>({ op: 'labels.ofChat', args: { chatId: alice } })).map((label) => label.id)).toEqual(['2', '5']);
    // A new label takes the number after the highest.
    expect(await run<Label>({ op: 'labels.create', args: { name: 'Later', color: 2 } })).toMatchObject({ id: '6' });
  });

  it('labels.delete: the chats lose it first (label.chat.deleted), then label.deleted with an empty name', async () => {
    const since = s.events.length;
    await run({ op: 'labels.delete', args: { id: '1' } });
    expect(labelEvents(since)).toEqual([
      ['label.chat.deleted', { labelId: '1', chatId: bob, label: lead }],
      ['label.deleted', { ...lead, name: '' }],
    ]);
    expect((await run<Label[]>({ op: 'labels.list' })).map((label) => label.id)).toEqual(['2', '5', '6']);
    expect(await run({ op: 'labels.chats', args: { id: '1' } })).toEqual([]);
    expect((await uploaded()).at(-1)).toMatchObject({ index: ['label_edit', '1'], action: { labelEditAction: { deleted: true } } });
    await expect(run({ op: 'labels.delete', args: { id: '1' } })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('changes made at once go one after the other: two creates take two numbers, a chat set twice ends as the last set', async () => {
    const [first, second] = await Promise.all([
      run<Label>({ op: 'labels.create', args: { name: 'Cold', color: 2 } }),
      run<Label>({ op: 'labels.create', args: { name: 'Warm', color: 4 } }),
    ]);
    expect([first.id, second.id]).toEqual(['7', '8']);
    await Promise.all([
      run({ op: 'labels.setForChat', args: { chatId: bob, labels: [{ id: first.id }] } }),
      run({ op: 'labels.setForChat', args: { chatId: bob, labels: [{ id: second.id }] } }),
    ]);
    expect(await run({ op: 'labels.ofChat', args: { chatId: bob } })).toEqual([second]);
    await Promise.all([run({ op: 'labels.delete', args: { id: first.id } }), run({ op: 'labels.delete', args: { id: second.id } })]);
    expect((await run<Label[]>({ op: 'labels.list' })).map((label) => label.id)).toEqual(['2', '5', '6']);
    expect(await run({ op: 'labels.ofChat', args: { chatId: bob } })).toEqual([]);
  });

  it('keeps its labels across a restart: the library fetches only newer patches then', async () => {
    await s.host.stop();
    const again = new NowebSession(s.fake, { authDir: s.authDir });
    try {
      await again.host.start();
      await again.waitForStatus('WORKING');
      expect((await again.host.execute({ op: 'labels.list' })) as Label[]).toEqual([
        vip,
        { id: '5', name: 'From the phone', color: 0, colorHex: '#ff9484' },
        { id: '6', name: 'Later', color: 2, colorHex: '#fed428' },
      ]);
      expect(await again.host.execute({ op: 'labels.ofChat', args: { chatId: alice } })).toEqual([vip, expect.objectContaining({ id: '5' })]);
    } finally {
      await again.host.stop();
    }
  });

  it('fetches the labels once when its auth state has no label book (kept before the engine kept one)', async () => {
    await s.store.set({ 'switchboard-labels': { 'switchboard-labels': null } });
    const older = new NowebSession(s.fake, { authDir: s.authDir });
    try {
      await older.host.start();
      await older.waitForStatus('WORKING');
      const ids = async () => ((await older.host.execute({ op: 'labels.list' })) as Label[]).map((label) => label.id);
      await waitFor(async () => (await ids()).join() === '2,5,6', 'labels 2, 5 and 6 fetched again');
      expect(await older.host.execute({ op: 'labels.ofChat', args: { chatId: alice } })).toEqual([vip, expect.objectContaining({ id: '5' })]);
      await waitFor(async () => (await s.store.get('switchboard-labels', ['switchboard-labels']))['switchboard-labels'], 'the book kept');
    } finally {
      await older.host.stop();
    }
  });
});
