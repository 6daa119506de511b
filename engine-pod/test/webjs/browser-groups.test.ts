// Groups through Chromium, for both browser engines on the fake WhatsApp Web, whose backend keeps
// the groups as WhatsApp's servers do: whatsapp-web.js's own group code, and WPPConnect's group
// layer with wa-js's `WPP.group`. Each operation is checked on the server side (what the group is
// now) and in what the API answers; changes made by the other members come back as group.v2.* events.
import type { GroupInfo, GroupParticipant } from '@switchboard/protocol';
import { waitFor } from '@switchboard/testkit';
import { beforeAll, describe, expect, it } from 'vitest';
import { pairedSuite, pairedWebjs, pairedWpp } from './paired-webjs.js';

const ME = { id: '15550008888@c.us', pushName: 'Group Admin' };
const ADA = '15552220001@c.us';
const BOB = '15552220002@c.us';
const CY = '15552220003@c.us';
const DEE = '15552220004@c.us';
const EVE = '15552220005@c.us';
const NOBODY = '15552229999@c.us';
// A 1x1 PNG: the library crops and re-encodes a picture in the page, so it must decode.
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a3e1f4e20000000049454e44ae426082',
  'hex',
);

describe.each([
  // whatsapp-web.js makes the group without a member who has no account, as WhatsApp does.
  ['WEBJS', pairedWebjs, { createsWithoutUnregistered: true }],
  // wa-js looks each member up first and makes no group when one has no account.
  ['WPP', pairedWpp, { createsWithoutUnregistered: false }],
] as const)('%s groups through Chromium: the server-side group and the API agree', (engine, paired, { createsWithoutUnregistered }) => {
  const session = pairedSuite(paired, 'groups', ME);
  const { payloads, run } = session;
  /** The members of a group on the server side, with their roles. */
  const serverMembers = (id: string) =>
    Object.fromEntries(
      [...(session.phone.groups.get(id)?.participants ?? [])].map(([member, role]) => [
        member,
        role.isSuperAdmin ? 'superadmin' : role.isAdmin ? 'admin' : 'participant',
      ]),
    );
  /** The group.v2.participants event of one change to one member of a group. */
  const participantsEvent = (group: string, type: string, member: string) =>
    waitFor(
      () =>
        payloads('group.v2.participants').find(
          (p) =>
            (p.group as { id: string }).id === group &&
            p.type === type &&
            (p.participants as GroupParticipant[]).some((participant) => participant.id === member),
        ),
      `group.v2.participants ${type} ${member} in ${group}`,
    );

  beforeAll(() => {
    session.phone.unregistered.add(NOBODY);
  });

  let group: string;

  it('creates a group: the server has it with its members, the account its owner; the answer is the group', async () => {
    const created = await run<GroupInfo>({
      op: 'group.create',
      args: { name: 'Switchboard crew', participants: [{ id: ADA }, { id: BOB }, ...(createsWithoutUnregistered ? [{ id: NOBODY }] : [])] },
    });
    group = created.id;
    expect(group).toMatch(/@g\.us$/);
    // A number with no account is left out, as WhatsApp does.
    expect(serverMembers(group)).toEqual({ [ME.id]: 'superadmin', [ADA]: 'participant', [BOB]: 'participant' });
    expect(session.phone.groups.get(group)?.subject).toBe('Switchboard crew');
    expect(created).toMatchObject({ subject: 'Switchboard crew', description: '' });
    expect(Object.fromEntries(created.participants.map((p) => [p.id, p.role]))).toEqual(serverMembers(group));
  });

  if (!createsWithoutUnregistered)
    it('a number with no account among the members is a 400 naming participants, and no group is made (wa-js checks each first)', async () => {
      const before = (await run<GroupInfo[]>({ op: 'group.list' })).length;
      await expect(run({ op: 'group.create', args: { name: 'Nobody here', participants: [{ id: ADA }, { id: NOBODY }] } })).rejects.toMatchObject({
        code: 'INVALID',
        message: expect.stringContaining('participants'),
      });
      expect(await run<GroupInfo[]>({ op: 'group.list' })).toHaveLength(before);
    });

  it('lists and gets it as the server has it', async () => {
    const listed = await run<GroupInfo[]>({ op: 'group.list' });
    expect(listed.map((g) => g.id)).toContain(group);
    const got = await run<GroupInfo>({ op: 'group.get', args: { id: group } });
    expect(got).toMatchObject({ id: group, subject: 'Switchboard crew' });
    expect(Object.fromEntries(got.participants.map((p) => [p.id, p.role]))).toEqual(serverMembers(group));
  });

  it('adds a member (the server has them, group.v2.participants join); a number with no account is a 400 naming participants', async () => {
    const added = await run<GroupParticipant[]>({
      op: 'group.participants',
      args: { id: group, action: 'add', participants: [{ id: CY }] } as never,
    });
    expect(added).toEqual([{ id: CY, role: 'participant' }]);
    expect(serverMembers(group)[CY]).toBe('participant');
    await participantsEvent(group, 'join', CY);
    await expect(
      run({ op: 'group.participants', args: { id: group, action: 'add', participants: [{ id: NOBODY }] } as never }),
    ).rejects.toMatchObject({ code: 'INVALID', message: expect.stringContaining('participants') });
    expect(serverMembers(group)).not.toHaveProperty(NOBODY);
  });

  it('promotes, demotes and removes members: the server has each change, and each is a group.v2.participants event', async () => {
    expect(await run({ op: 'group.participants', args: { id: group, action: 'promote', participants: [{ id: ADA }] } as never })).toEqual([
      { id: ADA, role: 'admin' },
    ]);
    expect(serverMembers(group)[ADA]).toBe('admin');
    await participantsEvent(group, 'promote', ADA);
    await run({ op: 'group.participants', args: { id: group, action: 'demote', participants: [{ id: ADA }] } as never });
    expect(serverMembers(group)[ADA]).toBe('participant');
    await participantsEvent(group, 'demote', ADA);
    await run({ op: 'group.participants', args: { id: group, action: 'remove', participants: [{ id: BOB }] } as never });
    expect(serverMembers(group)).not.toHaveProperty(BOB);
    await participantsEvent(group, 'leave', BOB);
  });

  it('sets the subject and the description: the server has them, group.get answers them, group.v2.update says so', async () => {
    await run({ op: 'group.setSubject', args: { id: group, subject: 'Crew, renamed' } });
    await run({ op: 'group.setDescription', args: { id: group, description: 'Who runs the gateway' } });
    expect(session.phone.groups.get(group)).toMatchObject({ subject: 'Crew, renamed', desc: 'Who runs the gateway' });
    expect(await run<GroupInfo>({ op: 'group.get', args: { id: group } })).toMatchObject({
      subject: 'Crew, renamed',
      description: 'Who runs the gateway',
    });
    await waitFor(() => payloads('group.v2.update').find((p) => (p.group as { subject?: string }).subject === 'Crew, renamed'), 'the subject update');
    await waitFor(
      () => payloads('group.v2.update').find((p) => (p.group as { description?: string }).description === 'Who runs the gateway'),
      'the description update',
    );
  });

  it("reads the invite link (the server's code), and a revoke gives a new one the server has", async () => {
    const link = await run<string>({ op: 'group.inviteCode', args: { id: group } });
    const before = session.phone.groups.get(group)!.inviteCode;
    expect(link).toBe(`https://chat.whatsapp.com/${before}`);
    const revoked = await run<string>({ op: 'group.revokeInvite', args: { id: group } });
    const after = session.phone.groups.get(group)!.inviteCode;
    expect(after).not.toBe(before);
    expect(revoked).toBe(`https://chat.whatsapp.com/${after}`);
  });

  it('members joining by link and leaving on their own, on their phones, are group.v2.participants events', async () => {
    session.phone.groups.join(group, DEE);
    await participantsEvent(group, 'join', DEE);
    expect((await run<GroupInfo>({ op: 'group.get', args: { id: group } })).participants).toContainEqual({ id: DEE, role: 'participant' });
    session.phone.groups.leave(group, DEE);
    await participantsEvent(group, 'leave', DEE);
  });

  it('added to a group by someone else: group.v2.join with the group; removed from it: group.v2.leave', async () => {
    const theirs = session.phone.groups.addMe('Their group', ADA, [BOB]);
    const joined = await waitFor(() => payloads('group.v2.join').find((p) => (p.group as GroupInfo).id === theirs), 'group.v2.join');
    expect(joined.group).toMatchObject({ id: theirs, subject: 'Their group' });
    expect(Object.fromEntries((joined.group as GroupInfo).participants.map((p) => [p.id, p.role]))).toEqual({
      [ADA]: 'superadmin',
      [ME.id]: 'participant',
      [BOB]: 'participant',
    });
    // Only admins change a group: WhatsApp refuses, and the API says so.
    await expect(run({ op: 'group.setSubject', args: { id: theirs, subject: 'mine now' } })).rejects.toMatchObject({ code: 'WRONG_STATUS' });
    expect(session.phone.groups.get(theirs)?.subject).toBe('Their group');
    session.phone.groups.removeMe(theirs, ADA);
    await waitFor(() => payloads('group.v2.leave').find((p) => (p.group as { id: string }).id === theirs), 'group.v2.leave');
  });

  it('settings: the server has only admins editing and sending, and group.settings answers it', async () => {
    await run({ op: 'group.setSetting', args: { id: group, setting: 'infoAdminOnly', adminsOnly: true } });
    await run({ op: 'group.setSetting', args: { id: group, setting: 'messagesAdminOnly', adminsOnly: true } });
    expect(session.phone.groups.get(group)).toMatchObject({ restrict: true, announce: true });
    expect(await run({ op: 'group.settings', args: { id: group } })).toEqual({ infoAdminOnly: true, messagesAdminOnly: true });
    await run({ op: 'group.setSetting', args: { id: group, setting: 'messagesAdminOnly', adminsOnly: false } });
    expect(session.phone.groups.get(group)).toMatchObject({ restrict: true, announce: false });
    expect(await run({ op: 'group.settings', args: { id: group } })).toEqual({ infoAdminOnly: true, messagesAdminOnly: false });
  });

  it('sets the picture (the server gets the JPEG the library made of it) and deletes it; group.picture reads what the server has', async () => {
    await run({ op: 'group.setPicture', args: { id: group, file: { mimetype: 'image/png', filename: null, data: PNG.toString('base64') } } });
    expect(session.phone.contacts.pictureUploads.at(-1)).toMatchObject({ id: group, picture: expect.stringMatching(/^data:image\/jpeg;base64,/) });
    expect(session.phone.contacts.pictureOf(group)).toContain('https://pps.whatsapp.net/');
    expect(await run({ op: 'group.picture', args: { id: group, refresh: true } })).toMatchObject({
      url: session.phone.contacts.pictureOf(group),
    });
    await run({ op: 'group.deletePicture', args: { id: group } });
    expect(session.phone.contacts.pictureOf(group)).toBeUndefined();
    expect(await run({ op: 'group.picture', args: { id: group, refresh: true } })).toMatchObject({ url: null });
  });

  it("joins another account's group by its invite: the server has the account in it, group.join answers its id, group.v2.join says so", async () => {
    const theirs = session.phone.groups.elsewhere('Open group', CY, [ADA]);
    const code = session.phone.groups.get(theirs)!.inviteCode;
    expect(await run<GroupInfo>({ op: 'group.joinInfo', args: { code } })).toMatchObject({ id: theirs, subject: 'Open group' });
    expect(await run({ op: 'group.join', args: { code } })).toEqual({ id: theirs });
    expect(serverMembers(theirs)).toEqual({ [CY]: 'superadmin', [ADA]: 'participant', [ME.id]: 'participant' });
    await waitFor(() => payloads('group.v2.join').find((p) => (p.group as GroupInfo).id === theirs), 'group.v2.join');
    await expect(run({ op: 'group.join', args: { code: 'NoSuchInvite0' } })).rejects.toMatchObject({ code: 'ENGINE_ERROR' });
  });

  it("a member's description, setting, picture change, pin and invite link are refused by the server while only admins edit the group's info", async () => {
    const { phone } = session;
    const theirs = phone.groups.addMe('Strict group', ADA);
    await waitFor(() => payloads('group.v2.join').find((p) => (p.group as GroupInfo).id === theirs), 'group.v2.join');
    phone.groups.setting(theirs, ADA, { restrict: true });
    await waitFor(
      async () => ((await run<{ infoAdminOnly: boolean }>({ op: 'group.settings', args: { id: theirs } })).infoAdminOnly ? true : null),
      'the setting',
    );
    await expect(run({ op: 'group.setDescription', args: { id: theirs, description: 'mine' } })).rejects.toMatchObject({ code: 'WRONG_STATUS' });
    await expect(run({ op: 'group.setSetting', args: { id: theirs, setting: 'infoAdminOnly', adminsOnly: false } })).rejects.toMatchObject({
      code: 'WRONG_STATUS',
    });
    const uploads = phone.contacts.pictureUploads.length;
    await expect(
      run({ op: 'group.setPicture', args: { id: theirs, file: { mimetype: 'image/png', filename: null, data: PNG.toString('base64') } } }),
    ).rejects.toMatchObject({ code: 'WRONG_STATUS' });
    expect(phone.contacts.pictureUploads).toHaveLength(uploads);
    await expect(run({ op: 'group.inviteCode', args: { id: theirs } })).rejects.toMatchObject({ code: 'WRONG_STATUS' });
    expect(phone.groups.get(theirs)).toMatchObject({ desc: '', restrict: true });
    const posted = phone.text(theirs, 'pin this', { author: ADA });
    const messageId = `false_${theirs}_${posted}_${ADA}`;
    await waitFor(() => payloads('message').some((p) => p.id === messageId), 'the group message');
    await expect(run({ op: 'message.pin', args: { chatId: theirs, messageId, duration: 86_400 } })).rejects.toMatchObject({ code: 'ENGINE_ERROR' });
    expect(phone.pins).toEqual([]);
  });

  // The invitation WhatsApp asks for is sent by whatsapp-web.js; wa-js leaves such a member out.
  if (engine === 'WEBJS')
    it('creates a group with someone who may be added only by invitation: not a member, sent a private invitation with WhatsApp`s code', async () => {
      const { phone } = session;
      phone.groups.addOnlyByInvite.add(EVE);
      const hello = `false_${EVE}_${phone.text(EVE, 'add me?')}`;
      await waitFor(() => payloads('message').some((p) => p.id === hello), 'a chat with Eve');
      const created = await run<GroupInfo>({ op: 'group.create', args: { name: 'By invitation', participants: [{ id: ADA }, { id: EVE }] } });
      expect(serverMembers(created.id)).toEqual({ [ME.id]: 'superadmin', [ADA]: 'participant' });
      expect(phone.groups.invitesV4).toEqual([
        { to: EVE, group: created.id, subject: 'By invitation', code: expect.any(String) as unknown, expiration: expect.any(Number) as unknown },
      ]);
    });

  it('leaves a group: the server no longer has the account in it, and group.v2.leave says so', async () => {
    await run({ op: 'group.leave', args: { id: group } });
    expect(serverMembers(group)).not.toHaveProperty(ME.id);
    await waitFor(() => payloads('group.v2.leave').find((p) => (p.group as { id: string }).id === group), 'group.v2.leave');
  });

  it('group notifications (gp2) were never reported as messages', () => {
    const notifications = [...payloads('message'), ...payloads('message.any')].filter((p) => (p._data as { type?: string }).type === 'gp2');
    expect(notifications).toEqual([]);
    expect(payloads('group.v2.participants').length).toBeGreaterThan(0);
  });
});
