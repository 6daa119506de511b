// WPP's events that translate nothing, through Chromium on the fake WhatsApp Web: WPPConnect's
// `onStateChange` as state.change, its member changes as the spec's v1 group.join and group.leave,
// and each client event the engine listens to as engine.event.
import { waitFor } from '@switchboard/testkit';
import { describe, expect, it } from 'vitest';
import { pairedSuite, pairedWpp } from '../webjs/paired-webjs.js';

const ME = { id: '15550001616@c.us', pushName: 'WPP Engine Events' };
const ADA = '15552226001@c.us';
const BOB = '15552226002@c.us';
const CONTACT = '15551116666@c.us';

describe('WPP engine events through Chromium', () => {
  const session = pairedSuite(pairedWpp, 'engine-events', ME);
  const { payloads } = session;

  it("state.change carries WhatsApp Web's socket state as WPPConnect reports it: CONNECTED once signed in", async () => {
    await waitFor(() => payloads('state.change').find((p) => p.state === 'CONNECTED'), 'state.change CONNECTED');
    expect(payloads('state.change').every((p) => typeof p.state === 'string')).toBe(true);
  });

  it('a group the account is added to, a member joining and leaving, the account removed: group.join and group.leave with the change', async () => {
    const group = session.phone.groups.addMe('Engine events', ADA, [BOB]);
    const added = await waitFor(() => payloads('group.join').find((p) => p.groupId === group), 'group.join of the account');
    expect(added).toMatchObject({ groupId: group, action: 'add', who: [ME.id], by: ADA, timestamp: expect.any(Number) });
    session.phone.groups.join(group, CONTACT);
    await waitFor(
      () => payloads('group.join').find((p) => p.groupId === group && (p.who as string[]).includes(CONTACT)),
      'group.join of the contact',
    );
    session.phone.groups.leave(group, CONTACT);
    const left = await waitFor(() => payloads('group.leave').find((p) => p.groupId === group && p.action === 'leave'), 'group.leave of the contact');
    expect(left).toMatchObject({ who: [CONTACT] });
    session.phone.groups.removeMe(group, ADA);
    const removed = await waitFor(
      () => payloads('group.leave').find((p) => p.groupId === group && p.action === 'remove'),
      'group.leave of the account',
    );
    expect(removed).toMatchObject({ who: [ME.id], by: ADA });
  });

  it("engine.event relays WPPConnect's own event untranslated: a received text as onAnyMessage, with the message as wa-js serializes it", async () => {
    const id = session.phone.text(CONTACT, 'relay me');
    const relayed = await waitFor(
      () =>
        payloads('engine.event').find((p) => p.event === 'onAnyMessage' && (p.data as { message: { body?: string } }).message.body === 'relay me'),
      'engine.event onAnyMessage',
    );
    expect((relayed.data as { message: { id: unknown } }).message.id).toBe(`false_${CONTACT}_${id}`);
    expect(payloads('engine.event').some((p) => p.event === 'onStateChange')).toBe(true);
  });
});
