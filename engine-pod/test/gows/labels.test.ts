import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Label } from '@switchboard/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakePhone, FakeWaServer } from '../fake-wa/index.js';
import { buildGows, closeChecked, fakeServerDriver, type GowsDriver, pairWithFake } from './driver.js';

/**
 * Labels on GOWS (engines/gows/internal/engine/labels.go), as NOWEB does them (engine-pod/test/noweb/labels.test.ts):
 * each operation is an app state patch whatsmeow uploads to the fake server, which decodes it (MACs
 * checked) as the phone's server would; the phone's own labels arrive as app state too. Every
 * `label.*` payload is parsed against its schema by the driver.
 */
const ALICE = '15551280001';
const alice = `${ALICE}@c.us`;
const aliceJid = `${ALICE}@s.whatsapp.net`;
const BOB = '15551280002';
const bob = `${BOB}@c.us`;
let fake: FakeWaServer;
let binary: string;
let gows: GowsDriver;
let phone: FakePhone;
const authDir = mkdtempSync(join(tmpdir(), 'sb-gows-labels-'));

beforeAll(async () => {
  [fake, binary] = await Promise.all([FakeWaServer.start({ signal: true }), buildGows()]);
  gows = fakeServerDriver(binary, fake, 'gows-labels', { authDir });
  phone = await pairWithFake(gows, fake, 'gows-labels');
}, 180_000);

afterAll(() => closeChecked(gows, fake));

/** The label.* events past `since`, in order. */
const labelEvents = (since: number) =>
  gows.notifications
    .slice(since)
    .filter((n) => n.method === 'event' && String(n.params.event).startsWith('label.'))
    .map((n) => [n.params.event, n.params.payload]);
/** The label mutations the engine uploaded, as the server decoded them. */
const uploaded = () => phone.appState.labelUploads();

describe('GOWS labels: operations as app state patches, with their label.* events', () => {
  let lead: Label;
  let vip: Label;

  it('createLabel: a label_edit patch the server decodes, the label numbered from 1, and label.upsert', async () => {
    const since = gows.notifications.length;
    lead = await gows.request<Label>('createLabel', { name: 'Lead', color: 1 });
    expect(lead).toEqual({ id: '1', name: 'Lead', color: 1, colorHex: '#64c4ff' });
    vip = await gows.request<Label>('createLabel', { name: 'VIP', color: 3 });
    expect(vip.id).toBe('2');
    expect((await uploaded()).map((u) => [u.index, u.action.labelEditAction?.name, u.action.labelEditAction?.color])).toEqual([
      [['label_edit', '1'], 'Lead', 1],
      [['label_edit', '2'], 'VIP', 3],
    ]);
    expect(labelEvents(since)).toEqual([
      ['label.upsert', lead],
      ['label.upsert', vip],
    ]);
    expect(await gows.request('labels')).toEqual([lead, vip]);
  });

  it('updateLabel: the label changed in place, label.upsert once; an unknown label is NOT_FOUND', async () => {
    const since = gows.notifications.length;
    lead = await gows.request<Label>('updateLabel', { id: '1', name: 'Hot lead', color: 13 });
    expect(lead).toEqual({ id: '1', name: 'Hot lead', color: 13, colorHex: '#f64847' });
    expect(labelEvents(since)).toEqual([['label.upsert', lead]]);
    expect(await gows.failureCode('updateLabel', { id: '9', name: 'x', color: 0 })).toBe('NOT_FOUND');
  });

  it("setChatLabels: label_jid patches for what changes only; the chat's labels, the label's chats and label.chat.*", async () => {
    const since = gows.notifications.length;
    await gows.request('setChatLabels', { chatId: alice, labelIds: ['1', '2'] });
    await gows.request('setChatLabels', { chatId: bob, labelIds: ['1'] });
    expect(await gows.request('chatLabels', { chatId: alice })).toEqual([lead, vip]);
    expect(await gows.request('labelChats', { id: '1' })).toEqual([{ id: alice }, { id: bob }]);
    await gows.request('setChatLabels', { chatId: alice, labelIds: ['2'] });
    expect(await gows.request('chatLabels', { chatId: alice })).toEqual([vip]);
    expect(labelEvents(since)).toEqual([
      ['label.chat.added', { labelId: '1', chatId: alice, label: lead }],
      ['label.chat.added', { labelId: '2', chatId: alice, label: vip }],
      ['label.chat.added', { labelId: '1', chatId: bob, label: lead }],
      ['label.chat.deleted', { labelId: '1', chatId: alice, label: lead }],
    ]);
    const jids = (await uploaded()).filter((u) => u.index[0] === 'label_jid');
    expect(jids.map((u) => [u.index[1], u.index[2], u.action.labelAssociationAction?.labeled])).toEqual([
      ['1', aliceJid, true],
      ['2', aliceJid, true],
      ['1', `${BOB}@s.whatsapp.net`, true],
      ['1', aliceJid, false],
    ]);
    expect(await gows.failureCode('setChatLabels', { chatId: alice, labelIds: ['9'] })).toBe('INVALID');
  });

  it("the phone's labels and labelling: label.upsert and label.chat.added, and the lists have them", async () => {
    const since = gows.notifications.length;
    await phone.label({ id: '5', name: 'From the phone', color: 0 });
    await phone.labelChat('5', ALICE, true);
    await gows.event('label.chat.added', (p) => p.labelId === '5', since);
    const phoneLabel = { id: '5', name: 'From the phone', color: 0, colorHex: '#ff9484' };
    expect(labelEvents(since)).toEqual([
      ['label.upsert', phoneLabel],
      ['label.chat.added', { labelId: '5', chatId: alice, label: phoneLabel }],
    ]);
    expect((await gows.request<Label[]>('labels')).map((label) => label.id)).toEqual(['1', '2', '5']);
    expect((await gows.request<Label[]>('chatLabels', { chatId: alice })).map((label) => label.id)).toEqual(['2', '5']);
    // A new label takes the number after the highest.
    expect(await gows.request<Label>('createLabel', { name: 'Later', color: 2 })).toMatchObject({ id: '6' });
  });

  it('deleteLabel: the chats lose it first (label.chat.deleted), then label.deleted with an empty name', async () => {
    const since = gows.notifications.length;
    await gows.request('deleteLabel', { id: '1' });
    expect(labelEvents(since)).toEqual([
      ['label.chat.deleted', { labelId: '1', chatId: bob, label: lead }],
      ['label.deleted', { ...lead, name: '' }],
    ]);
    expect((await gows.request<Label[]>('labels')).map((label) => label.id)).toEqual(['2', '5', '6']);
    expect(await gows.request('labelChats', { id: '1' })).toEqual([]);
    expect((await uploaded()).at(-1)).toMatchObject({ index: ['label_edit', '1'], action: { labelEditAction: { deleted: true } } });
    expect(await gows.failureCode('deleteLabel', { id: '1' })).toBe('NOT_FOUND');
  });

  it('changes made at once go one after the other: two creates take two numbers, a chat set twice ends as the last set', async () => {
    const [first, second] = await Promise.all([
      gows.request<Label>('createLabel', { name: 'Cold', color: 2 }),
      gows.request<Label>('createLabel', { name: 'Warm', color: 4 }),
    ]);
    expect([first.id, second.id].sort()).toEqual(['7', '8']);
    await Promise.all([
      gows.request('setChatLabels', { chatId: bob, labelIds: [first.id] }),
      gows.request('setChatLabels', { chatId: bob, labelIds: [second.id] }),
    ]);
    expect((await gows.request<Label[]>('chatLabels', { chatId: bob })).length).toBe(1);
    await Promise.all([gows.request('deleteLabel', { id: first.id }), gows.request('deleteLabel', { id: second.id })]);
    expect((await gows.request<Label[]>('labels')).map((label) => label.id)).toEqual(['2', '5', '6']);
    expect(await gows.request('chatLabels', { chatId: bob })).toEqual([]);
  });

  it('keeps its labels across a restart (with the auth state): whatsmeow fetches only newer patches then', async () => {
    expect(await gows.close()).toBe(0);
    gows = fakeServerDriver(binary, fake, 'gows-labels', { authDir });
    await gows.request('start', { session: 'gows-labels', settings: {} });
    await gows.status('WORKING');
    expect(await gows.request('labels')).toEqual([
      vip,
      { id: '5', name: 'From the phone', color: 0, colorHex: '#ff9484' },
      { id: '6', name: 'Later', color: 2, colorHex: '#fed428' },
    ]);
    expect((await gows.request<Label[]>('chatLabels', { chatId: alice })).map((label) => label.id)).toEqual(['2', '5']);
  });
});

describe('GOWS labels the phone had before pairing', () => {
  it('come with the first sync as label.upsert and label.chat.added, the lists have them, and a restart does not report them again', async () => {
    const early = await FakeWaServer.start({ signal: true });
    const earlyPhone = early.phone({ phone: '15551280009', pushName: 'Early' });
    await earlyPhone.label({ id: '3', name: 'Before pairing', color: 4 });
    await earlyPhone.labelChat('3', ALICE, true);
    const dir = mkdtempSync(join(tmpdir(), 'sb-gows-labels-early-'));
    let child = fakeServerDriver(binary, early, 'gows-labels-early', { authDir: dir });
    try {
      await child.request('start', { session: 'gows-labels-early', settings: {} });
      await child.status('SCAN_QR_CODE');
      expect(await early.scanQr(await child.request<string>('qr'), { phone: '15551280009' })).toBe(earlyPhone);
      await child.status('WORKING');
      await child.event('label.chat.added', (p) => p.labelId === '3');
      const before = { id: '3', name: 'Before pairing', color: 4 };
      expect(await child.request('labels')).toEqual([expect.objectContaining(before)]);
      expect((await child.request<Label[]>('chatLabels', { chatId: alice })).map((label) => label.id)).toEqual(['3']);
      const events = child.notifications
        .filter((n) => n.method === 'event' && String(n.params.event).startsWith('label.'))
        .map((n) => n.params.event);
      expect(events).toEqual(['label.upsert', 'label.chat.added']);

      // A restart syncs only newer patches: the phone's next label is the only label event.
      expect(await child.close()).toBe(0);
      child = fakeServerDriver(binary, early, 'gows-labels-early', { authDir: dir });
      await child.request('start', { session: 'gows-labels-early', settings: {} });
      await child.status('WORKING');
      await earlyPhone.label({ id: '4', name: 'After', color: 1 });
      await child.event('label.upsert', (p) => p.id === '4');
      const again = child.notifications
        .filter((n) => n.method === 'event' && String(n.params.event).startsWith('label.'))
        .map((n) => n.params.payload);
      expect(again).toEqual([expect.objectContaining({ id: '4' })]);
      expect((await child.request<Label[]>('labels')).map((label) => label.id)).toEqual(['3', '4']);
    } finally {
      await closeChecked(child, early);
    }
  }, 120_000);
});
