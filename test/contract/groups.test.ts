import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventTap } from './event-tap.js';
import { ADMIN_KEY, startGateway, type ContractGateway, waitForStatus } from './harness.js';

/*
 * The peer's Groups operations (issue 16) on a SANDBOX session: each answers as the peer's
 * document says, changes the groups of the simulated account, and sends the `group.v2.*` events
 * a real engine receives for the change (checked at a webhook and on /ws by EventTap).
 */

const ALICE = '15551230001@c.us';
const BOB = '15551230002@c.us';
const CAROL = '245120000000077@lid';
const MEMBER = '15557770001@c.us';
const INVITE = /^https:\/\/chat\.whatsapp\.com\/[0-9A-Za-z]{22}$/;

let gw: ContractGateway;
let tap: EventTap;
const S = 'groups';
const api = (method: string, path: string, body?: unknown) => gw.api(method, `/api/${S}${path}`, body);
/** A group of mine, made through the API. */
let team: any;

beforeAll(async () => {
  gw = await startGateway();
  tap = await EventTap.open(gw, S);
  team = (await api('POST', '/groups', { name: 'Team', participants: [{ id: ALICE }, { id: BOB }] })).body;
});
afterAll(async () => {
  await tap.close();
  await gw.close();
});

describe('POST /api/{session}/groups', () => {
  it('answers 201 with the group record: you its superadmin, the others participants; group.v2.join carries it', async () => {
    const res = await api('POST', '/groups', { name: 'Launch', participants: [{ id: CAROL }] });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^120363\d{12}@g\.us$/),
      subject: 'Launch',
      description: '',
      invite: expect.stringMatching(INVITE),
      membersCanAddNewMember: false,
      membersCanSendMessages: true,
      newMembersApprovalRequired: false,
      participants: [
        { id: tap.me, role: 'superadmin' },
        { id: CAROL, role: 'participant' },
      ],
    });
    const join = (await tap.delivered('group.v2.join', (p) => p.group.id === res.body.id)).payload;
    expect(join.group).toEqual(res.body);
  });

  it('refuses a bad body with 400 naming each field', async () => {
    const cases: [unknown, string][] = [
      [{ participants: [] }, 'body.name'],
      [{ name: '', participants: [] }, 'body.name'],
      [{ name: 'x'.repeat(101), participants: [] }, 'body.name'],
      [{ name: 'Team' }, 'body.participants'],
      [{ name: 'Team', participants: [{ id: '12345' }] }, 'body.participants[0].id'],
      [{ name: 'Team', participants: ['15551230001@c.us'] }, 'body.participants[0]'],
    ];
    for (const [body, field] of cases) {
      const res = await api('POST', '/groups', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.details.map((d: { path: string }) => d.path)).toEqual([field]);
    }
  });

  it('a number that is not on WhatsApp is refused naming body.participants, and no group is made', async () => {
    const before = (await api('GET', '/groups/count')).body.count;
    const res = await api('POST', '/groups', { name: 'Nobody', participants: [{ id: '0001234@c.us' }] });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([{ path: 'body.participants', reason: '0001234@c.us is not on WhatsApp' }]);
    expect((await api('GET', '/groups/count')).body.count).toBe(before);
  });
});

describe('GET /api/{session}/groups, /groups/count, /groups/{id}, POST /groups/refresh', () => {
  beforeAll(async () => {
    for (const name of ['Alpha', 'Zulu', 'Mike']) await api('POST', '/groups', { name, participants: [] });
  });

  it('lists every group with its record; count counts them', async () => {
    const list = await api('GET', '/groups');
    expect(list.status).toBe(200);
    expect(list.body).toContainEqual(team);
    expect((await api('GET', '/groups/count')).body).toEqual({ count: list.body.length });
  });

  it('sorts by subject or id, either way; limit and offset page; limit=0 sets no limit', async () => {
    const subjects = async (query: string) => (await api('GET', `/groups?${query}`)).body.map((g: { subject: string }) => g.subject);
    const all = await subjects('sortBy=subject');
    expect(all).toEqual([...all].sort());
    expect(await subjects('sortBy=subject&sortOrder=desc')).toEqual([...all].reverse());
    expect(await subjects('sortBy=subject&limit=2&offset=1')).toEqual(all.slice(1, 3));
    expect(await subjects('sortBy=subject&limit=0')).toEqual(all);
    const ids = (await api('GET', '/groups?sortBy=id')).body.map((g: { id: string }) => g.id);
    expect(ids).toEqual([...ids].sort());
  });

  it('exclude=participants leaves the members out', async () => {
    const list = await api('GET', '/groups?exclude=participants');
    expect(list.status).toBe(200);
    for (const group of list.body) expect(group).not.toHaveProperty('participants');
  });

  it('refuses a bad query with 400 naming it', async () => {
    for (const [query, field] of [
      ['sortBy=name', 'querystring.sortBy'],
      ['sortOrder=up', 'querystring.sortOrder'],
      ['limit=-1', 'querystring.limit'],
      ['exclude=members', 'querystring.exclude'],
    ]) {
      const res = await api('GET', `/groups?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.details.map((d: { path: string }) => d.path)[0], query).toContain(field);
    }
  });

  it('GET /groups/{id} answers the record; a group you are not in is 404, a malformed id 400 naming params.id', async () => {
    expect(await api('GET', `/groups/${team.id}`)).toMatchObject({ status: 200, body: team });
    const missing = await api('GET', '/groups/120363999999999999@g.us');
    expect(missing.status).toBe(404);
    const malformed = await api('GET', '/groups/123456789@c.us');
    expect(malformed.status).toBe(400);
    expect(malformed.body.details.map((d: { path: string }) => d.path)).toEqual(['params.id']);
  });

  it('POST /groups/refresh answers {success: true}', async () => {
    expect(await api('POST', '/groups/refresh')).toMatchObject({ status: 200, body: { success: true } });
  });
});

describe('subject, description and the security settings', () => {
  it('PUT subject and description answer {success: true}; the record changes and group.v2.update carries only the change', async () => {
    expect(await api('PUT', `/groups/${team.id}/subject`, { subject: 'Team A' })).toMatchObject({ status: 200, body: { success: true } });
    expect((await tap.delivered('group.v2.update', (p) => p.group.id === team.id && 'subject' in p.group)).payload.group).toEqual({
      id: team.id,
      subject: 'Team A',
    });
    expect(await api('PUT', `/groups/${team.id}/description`, { description: 'Our team' })).toMatchObject({ status: 200 });
    expect((await tap.delivered('group.v2.update', (p) => p.group.id === team.id && 'description' in p.group)).payload.group).toEqual({
      id: team.id,
      description: 'Our team',
    });
    expect((await api('GET', `/groups/${team.id}`)).body).toMatchObject({ subject: 'Team A', description: 'Our team' });
  });

  it('messages-admin-only: GET answers {adminsOnly}; PUT changes membersCanSendMessages, with group.v2.update', async () => {
    const path = `/groups/${team.id}/settings/security/messages-admin-only`;
    expect(await api('GET', path)).toMatchObject({ status: 200, body: { adminsOnly: false } });
    expect(await api('PUT', path, { adminsOnly: true })).toMatchObject({ status: 200, body: { success: true } });
    expect((await api('GET', path)).body).toEqual({ adminsOnly: true });
    expect((await api('GET', `/groups/${team.id}`)).body.membersCanSendMessages).toBe(false);
    const update = await tap.delivered('group.v2.update', (p) => p.group.id === team.id && 'membersCanSendMessages' in p.group);
    expect(update.payload.group).toEqual({ id: team.id, membersCanSendMessages: false });
  });

  it('info-admin-only: GET answers {adminsOnly}; PUT changes it', async () => {
    const path = `/groups/${team.id}/settings/security/info-admin-only`;
    expect((await api('GET', path)).body).toEqual({ adminsOnly: false });
    expect(await api('PUT', path, { adminsOnly: true })).toMatchObject({ status: 200, body: { success: true } });
    expect((await api('GET', path)).body).toEqual({ adminsOnly: true });
  });

  it('refuses a bad body with 400 naming the field', async () => {
    const cases: [string, unknown, string][] = [
      ['subject', { subject: '' }, 'body.subject'],
      ['subject', {}, 'body.subject'],
      ['description', { description: 'x'.repeat(2049) }, 'body.description'],
      ['settings/security/info-admin-only', {}, 'body.adminsOnly'],
      ['settings/security/messages-admin-only', { adminsOnly: 'yes' }, 'body.adminsOnly'],
    ];
    for (const [path, body, field] of cases) {
      const res = await api('PUT', `/groups/${team.id}/${path}`, body);
      expect(res.status, path).toBe(400);
      expect(res.body.details.map((d: { path: string }) => d.path)).toEqual([field]);
    }
  });
});

describe('participants', () => {
  it('add, promote, demote and remove answer the members changed with their role now, each with group.v2.participants', async () => {
    const change = async (path: string, participants: string[]) => {
      const res = await api('POST', `/groups/${team.id}/${path}`, { participants: participants.map((id) => ({ id })) });
      expect(res.status, path).toBe(200);
      return res.body;
    };
    const delivered = async (type: string) =>
      (await tap.delivered('group.v2.participants', (p) => p.group.id === team.id && p.type === type)).payload.participants;

    expect(await change('participants/add', [CAROL])).toEqual([{ id: CAROL, role: 'participant' }]);
    expect(await delivered('join')).toEqual([{ id: CAROL, role: 'participant' }]);
    expect(await change('admin/promote', [CAROL, ALICE])).toEqual([
      { id: CAROL, role: 'admin' },
      { id: ALICE, role: 'admin' },
    ]);
    expect(await delivered('promote')).toEqual([
      { id: CAROL, role: 'admin' },
      { id: ALICE, role: 'admin' },
    ]);
    expect(await change('admin/demote', [ALICE])).toEqual([{ id: ALICE, role: 'participant' }]);
    expect(await delivered('demote')).toEqual([{ id: ALICE, role: 'participant' }]);
    expect(await change('participants/remove', [BOB])).toEqual([{ id: BOB, role: 'left' }]);
    expect(await delivered('leave')).toEqual([{ id: BOB, role: 'left' }]);

    const expected = [
      { id: tap.me, role: 'superadmin' },
      { id: ALICE, role: 'participant' },
      { id: CAROL, role: 'admin' },
    ];
    expect((await api('GET', `/groups/${team.id}/participants`)).body).toEqual(expected);
    expect((await api('GET', `/groups/${team.id}/participants/v2`)).body).toEqual(expected);
  });

  it('members already in, members not in and your own account are refused with 400 naming body.participants', async () => {
    const cases: [string, string][] = [
      ['participants/add', ALICE],
      ['participants/remove', BOB],
      ['admin/promote', BOB],
      ['participants/remove', tap.me],
    ];
    for (const [path, id] of cases) {
      const res = await api('POST', `/groups/${team.id}/${path}`, { participants: [{ id }] });
      expect(res.status, `${path} ${id}`).toBe(400);
      expect(res.body.details.map((d: { path: string }) => d.path)).toEqual(['body.participants']);
    }
    const empty = await api('POST', `/groups/${team.id}/participants/add`, { participants: [] });
    expect(empty.status).toBe(400);
    expect(empty.body.details.map((d: { path: string }) => d.path)).toEqual(['body.participants']);
  });
});

describe('invite code, join-info and join', () => {
  it('GET invite-code answers the link as a JSON string; revoke makes a new one, with group.v2.update, and the old one leads nowhere', async () => {
    const link = await api('GET', `/groups/${team.id}/invite-code`);
    expect(link.status).toBe(200);
    expect(link.body).toBe(team.invite);
    const revoked = await api('POST', `/groups/${team.id}/invite-code/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatch(INVITE);
    expect(revoked.body).not.toBe(team.invite);
    expect((await tap.delivered('group.v2.update', (p) => p.group.id === team.id && 'invite' in p.group)).payload.group).toEqual({
      id: team.id,
      invite: revoked.body,
    });
    expect((await api('GET', `/groups/${team.id}/invite-code`)).body).toBe(revoked.body);
    const old = await api('GET', `/groups/join-info?code=${encodeURIComponent(team.invite)}`);
    expect(old.status).toBe(404);
  });

  it('join-info answers the group a code or link leads to; join makes you a member, with group.v2.join', async () => {
    const code = 'AbCdEfGhIjKlMnOpQrStUv';
    const info = await api('GET', `/groups/join-info?code=${code}`);
    expect(info.status).toBe(200);
    expect(info.body).toMatchObject({ id: expect.stringMatching(/@g\.us$/), participants: [{ id: MEMBER, role: 'superadmin' }] });
    expect((await api('GET', `/groups/join-info?code=https://chat.whatsapp.com/${code}`)).body).toEqual(info.body);
    const joined = await api('POST', '/groups/join', { code: `https://chat.whatsapp.com/${code}` });
    expect(joined).toMatchObject({ status: 200, body: { id: info.body.id } });
    const join = (await tap.delivered('group.v2.join', (p) => p.group.id === info.body.id)).payload;
    expect(join.group.participants).toEqual([
      { id: MEMBER, role: 'superadmin' },
      { id: tap.me, role: 'participant' },
    ]);
    expect((await api('POST', '/groups/join', { code })).body).toEqual({ id: info.body.id });
  });

  it('a code that leads nowhere is 404; a malformed one is 400 naming it', async () => {
    expect((await api('GET', '/groups/join-info?code=000NOWHERE')).status).toBe(404);
    expect((await api('POST', '/groups/join', { code: '000NOWHERE' })).status).toBe(404);
    const malformed = await api('POST', '/groups/join', { code: 'https://example.com/x y' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.details.map((d: { path: string }) => d.path)).toEqual(['body.code']);
    expect((await api('GET', '/groups/join-info')).body.details.map((d: { path: string }) => d.path)).toEqual(['querystring.code']);
  });
});

describe('picture', () => {
  const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

  it('GET answers {url: null} without one; PUT sets it (an address serving the image); DELETE removes it', async () => {
    expect(await api('GET', `/groups/${team.id}/picture`)).toMatchObject({ status: 200, body: { url: null } });
    const set = await api('PUT', `/groups/${team.id}/picture`, { file: { mimetype: 'image/png', data: PNG } });
    expect(set).toMatchObject({ status: 200, body: { success: true } });
    const { url } = (await api('GET', `/groups/${team.id}/picture?refresh=true`)).body;
    const file = await fetch(gw.url + new URL(url).pathname, { headers: { 'x-api-key': ADMIN_KEY } });
    expect(Buffer.from(await file.arrayBuffer())).toEqual(Buffer.from(PNG, 'base64'));
    expect(await api('DELETE', `/groups/${team.id}/picture`)).toMatchObject({ status: 200, body: { success: true } });
    expect((await api('GET', `/groups/${team.id}/picture`)).body).toEqual({ url: null });
  });

  it('refuses a file that is not an image naming body.file.mimetype', async () => {
    const res = await api('PUT', `/groups/${team.id}/picture`, { file: { mimetype: 'application/pdf', data: PNG } });
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: { path: string }) => d.path)).toEqual(['body.file.mimetype']);
  });
});

describe('what only admins may do', () => {
  let theirs: string;
  beforeAll(async () => {
    ({ id: theirs } = await tap.simulate({ kind: 'group-join', subject: 'Theirs', participants: [ALICE], by: MEMBER }));
  });

  it('a member who is not an admin is refused with 422 and the group is unchanged', async () => {
    const calls: [string, string, unknown?][] = [
      ['PUT', `/groups/${theirs}/settings/security/messages-admin-only`, { adminsOnly: true }],
      ['POST', `/groups/${theirs}/participants/add`, { participants: [{ id: BOB }] }],
      ['POST', `/groups/${theirs}/admin/promote`, { participants: [{ id: ALICE }] }],
      ['GET', `/groups/${theirs}/invite-code`],
      ['POST', `/groups/${theirs}/invite-code/revoke`],
      ['DELETE', `/groups/${theirs}`],
    ];
    for (const [method, path, body] of calls) {
      const res = await api(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(422);
      expect(res.body.details).toEqual({ id: theirs });
    }
    expect((await api('GET', `/groups/${theirs}`)).body).toMatchObject({ membersCanSendMessages: true, participants: expect.any(Array) });
    expect((await api('GET', `/groups/${theirs}/participants`)).body).toHaveLength(3);
  });

  it('any member edits the subject until the group limits its info to admins (a group-join as admin may then)', async () => {
    expect((await api('PUT', `/groups/${theirs}/subject`, { subject: 'Ours' })).status).toBe(200);
    const { id: admin } = await tap.simulate({ kind: 'group-join', subject: 'Admin', by: MEMBER, role: 'admin' });
    expect((await api('PUT', `/groups/${admin}/settings/security/info-admin-only`, { adminsOnly: true })).status).toBe(200);
    expect((await api('PUT', `/groups/${admin}/subject`, { subject: 'Still mine' })).status).toBe(200);
  });
});

describe('leave and delete', () => {
  it('POST leave answers {success: true} and sends group.v2.leave; the group is then 404', async () => {
    const { body: group } = await api('POST', '/groups', { name: 'Short-lived', participants: [{ id: ALICE }] });
    expect(await api('POST', `/groups/${group.id}/leave`)).toMatchObject({ status: 200, body: { success: true } });
    expect((await tap.delivered('group.v2.leave', (p) => p.group.id === group.id)).payload.group).toEqual({ id: group.id });
    expect((await api('GET', `/groups/${group.id}`)).status).toBe(404);
    expect((await api('POST', `/groups/${group.id}/leave`)).status).toBe(404);
  });

  it('DELETE by its superadmin removes everyone (group.v2.participants leave) and leaves (group.v2.leave)', async () => {
    const { body: group } = await api('POST', '/groups', { name: 'Doomed', participants: [{ id: ALICE }, { id: BOB }] });
    expect(await api('DELETE', `/groups/${group.id}`)).toMatchObject({ status: 200, body: { success: true } });
    const removed = await tap.delivered('group.v2.participants', (p) => p.group.id === group.id && p.type === 'leave' && p.participants.length === 2);
    expect(removed.payload.participants).toEqual([
      { id: ALICE, role: 'left' },
      { id: BOB, role: 'left' },
    ]);
    await tap.delivered('group.v2.leave', (p) => p.group.id === group.id);
    expect((await api('GET', `/groups/${group.id}`)).status).toBe(404);
  });
});

describe('sessions that cannot', () => {
  it('a session that is not WORKING answers 422 naming its status', async () => {
    await gw.api('POST', '/api/sessions', { name: 'groups-qr', engine: 'SANDBOX' });
    await waitForStatus(gw, 'groups-qr', 'SCAN_QR_CODE');
    for (const [method, path, body] of [
      ['GET', '/groups'],
      ['POST', '/groups', { name: 'x', participants: [] }],
      ['GET', `/groups/${team.id}/participants/v2`],
      ['POST', '/groups/join', { code: 'AbCdEf' }],
    ] as const) {
      const res = await gw.api(method, `/api/groups-qr${path}`, body);
      expect(res.status, `${method} ${path}`).toBe(422);
      expect(res.body.details).toEqual({ session: 'groups-qr', status: 'SCAN_QR_CODE', expected: ['WORKING'] });
    }
  });
});
