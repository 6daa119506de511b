import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PNG } from './chatting-support.js';
import { ADMIN_KEY, type ContractGateway, startGateway, waitForStatus, workingSession } from './harness.js';

/**
 * Channels (newsletters), with the peer product's paths and statuses (issue 16), on the SANDBOX:
 * what the account does shows in what it reads back (its list, each channel's role), and the
 * directory search pages through the simulated service's public channels.
 */
let gw: ContractGateway;
const S = 'chan';

beforeAll(async () => {
  gw = await startGateway();
  await workingSession(gw, S, { engine: 'SANDBOX' });
});
afterAll(async () => {
  await gw.close();
});

const list = async (query = '') => (await gw.api('GET', `/api/${S}/channels${query}`)).body as { id: string; role: string; name: string }[];

describe('channels: create, read, delete', () => {
  it('POST creates a channel the account OWNS: 201 with id, invite link and picture; it is listed, and readable by id and by invite', async () => {
    const made = await gw.api('POST', `/api/${S}/channels`, {
      name: 'Release notes',
      description: 'What changed, weekly',
      picture: { mimetype: 'image/png', data: PNG.toString('base64') },
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      name: 'Release notes',
      description: 'What changed, weekly',
      role: 'OWNER',
      verified: false,
      subscribersCount: 0,
    });
    expect(made.body.id).toMatch(/^\d+@newsletter$/);
    expect(made.body.invite).toMatch(/^https:\/\/www\.whatsapp\.com\/channel\/[0-9A-Za-z]+$/);
    // The picture is kept like any file, and downloads with the caller's key.
    const picture = await fetch(gw.url + new URL(made.body.picture).pathname, { headers: { 'x-api-key': ADMIN_KEY } });
    expect(picture.status).toBe(200);
    expect(Buffer.from(await picture.arrayBuffer())).toEqual(PNG);

    expect((await list()).map((c) => c.id)).toContain(made.body.id);
    expect((await list('?role=OWNER')).map((c) => c.id)).toContain(made.body.id);
    expect((await list('?role=SUBSCRIBER')).map((c) => c.id)).not.toContain(made.body.id);
    const byId = await gw.api('GET', `/api/${S}/channels/${made.body.id}`);
    expect(byId.status).toBe(200);
    expect(byId.body).toEqual(made.body);
    const code = made.body.invite.split('/').pop();
    expect((await gw.api('GET', `/api/${S}/channels/${code}`)).body).toEqual(made.body);
    expect((await gw.api('GET', `/api/${S}/channels/${encodeURIComponent(made.body.invite)}`)).body).toEqual(made.body);

    const deleted = await gw.api('DELETE', `/api/${S}/channels/${made.body.id}`);
    expect(deleted.status).toBe(200);
    expect((await gw.api('GET', `/api/${S}/channels/${made.body.id}`)).status).toBe(404);
    expect((await list()).map((c) => c.id)).not.toContain(made.body.id);
  });

  it('refuses what is not a channel: a name missing (400 naming it), an id of another kind (400), a role filter it does not know (400)', async () => {
    const noName = await gw.api('POST', `/api/${S}/channels`, { description: 'x' });
    expect(noName.status).toBe(400);
    expect(JSON.stringify(noName.body)).toContain('name');
    expect((await gw.api('POST', `/api/${S}/channels/12345@c.us/follow`)).status).toBe(400);
    expect((await gw.api('GET', `/api/${S}/channels/not%20a%20code!`)).status).toBe(400);
    expect((await gw.api('GET', `/api/${S}/channels?role=GUEST`)).status).toBe(400);
  });

  it('only the owner deletes a channel: a followed one answers 422 and stays', async () => {
    const id = '120363111111111111@newsletter';
    expect((await gw.api('POST', `/api/${S}/channels/${id}/follow`)).status).toBe(201);
    const refused = await gw.api('DELETE', `/api/${S}/channels/${id}`);
    expect(refused.status).toBe(422);
    expect(refused.body.message).toContain('owner');
    expect((await gw.api('GET', `/api/${S}/channels/${id}`)).body.role).toBe('SUBSCRIBER');
  });
});

describe('channels: follow, mute, unfollow', () => {
  it('follow makes the account a SUBSCRIBER (listed, one more subscriber); unfollow makes it a GUEST again', async () => {
    const id = '120363222222222222@newsletter';
    const before = (await gw.api('GET', `/api/${S}/channels/${id}`)).body;
    expect(before.role).toBe('GUEST');

    const followed = await gw.api('POST', `/api/${S}/channels/${id}/follow`);
    expect(followed.status).toBe(201);
    const after = (await gw.api('GET', `/api/${S}/channels/${id}`)).body;
    expect(after).toMatchObject({ role: 'SUBSCRIBER', subscribersCount: before.subscribersCount + 1 });
    expect((await list('?role=SUBSCRIBER')).map((c) => c.id)).toContain(id);

    expect((await gw.api('POST', `/api/${S}/channels/${id}/mute`)).status).toBe(201);
    expect((await gw.api('POST', `/api/${S}/channels/${id}/unmute`)).status).toBe(201);
    expect((await gw.api('POST', `/api/${S}/channels/${id}/unfollow`)).status).toBe(201);
    expect((await gw.api('GET', `/api/${S}/channels/${id}`)).body).toMatchObject({ role: 'GUEST', subscribersCount: before.subscribersCount });
    expect((await list()).map((c) => c.id)).not.toContain(id);
    // The owner cannot leave its own channel.
    const own = (await gw.api('POST', `/api/${S}/channels`, { name: 'Mine' })).body;
    expect((await gw.api('POST', `/api/${S}/channels/${own.id}/unfollow`)).status).toBe(422);
  });

  it('a channel the account deleted is gone for every action (404)', async () => {
    const own = (await gw.api('POST', `/api/${S}/channels`, { name: 'Short-lived' })).body;
    expect((await gw.api('DELETE', `/api/${S}/channels/${own.id}`)).status).toBe(200);
    for (const action of ['follow', 'mute', 'unmute', 'unfollow']) {
      expect((await gw.api('POST', `/api/${S}/channels/${own.id}/${action}`)).status, action).toBe(404);
    }
    expect((await gw.api('DELETE', `/api/${S}/channels/${own.id}`)).status).toBe(404);
  });
});

describe('channels: posts and the directory', () => {
  it("preview answers a channel's latest posts with reactions and views, `limit` of them", async () => {
    const res = await gw.api('GET', `/api/${S}/channels/0029Va4K0PZ5a245NkngBA2M/messages/preview?downloadMedia=false&limit=2`);
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(2);
    for (const post of res.body) {
      expect(post.message.from).toMatch(/@newsletter$/);
      expect(post.message.fromMe).toBe(false);
      expect(Number.isInteger(post.message.timestamp)).toBe(true);
      expect(typeof post.viewCount).toBe('number');
      expect(Object.values(post.reactions).every((count) => typeof count === 'number')).toBe(true);
    }
    expect((await gw.api('GET', `/api/${S}/channels/0029Va4K0PZ5a245NkngBA2M/messages/preview?limit=0`)).status).toBe(400);
  });

  it('the search filters are lists of {value|code, name}', async () => {
    const views = (await gw.api('GET', `/api/${S}/channels/search/views`)).body;
    expect(views.map((view: { value: string }) => view.value)).toEqual(['RECOMMENDED', 'TRENDING', 'POPULAR', 'NEW']);
    const countries = (await gw.api('GET', `/api/${S}/channels/search/countries`)).body;
    expect(countries).toContainEqual({ code: 'US', name: 'United States' });
    const categories = (await gw.api('GET', `/api/${S}/channels/search/categories`)).body;
    expect(categories).toContainEqual({ value: 'SPORTS', name: 'Sports' });
    expect((await gw.api('GET', '/api/no-such-session/channels/search/views')).status).toBe(404);
  });

  it('search by view filters by country and category and pages with the cursor; by text matches names and descriptions', async () => {
    const popular = await gw.api('POST', `/api/${S}/channels/search/by-view`, {
      view: 'POPULAR',
      countries: [],
      categories: [],
      limit: 3,
      startCursor: '',
    });
    expect(popular.status).toBe(200);
    expect(popular.body.channels).toHaveLength(3);
    expect(popular.body.page).toMatchObject({ startCursor: null, hasNextPage: true, hasPreviousPage: false });
    const counts = popular.body.channels.map((channel: { subscribersCount: number }) => channel.subscribersCount);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
    const next = await gw.api('POST', `/api/${S}/channels/search/by-view`, {
      view: 'POPULAR',
      countries: [],
      categories: [],
      limit: 3,
      startCursor: popular.body.page.endCursor,
    });
    expect(next.body.page.hasPreviousPage).toBe(true);
    expect(next.body.channels[0].subscribersCount).toBeLessThanOrEqual(counts[2]);

    const sports = await gw.api('POST', `/api/${S}/channels/search/by-view`, { view: 'RECOMMENDED', countries: ['GB'], categories: ['SPORTS'] });
    expect(sports.body.channels.map((channel: { name: string }) => channel.name)).toEqual(['Daily Football']);
    const text = await gw.api('POST', `/api/${S}/channels/search/by-text`, { text: 'recipes' });
    expect(text.body.channels.map((channel: { name: string }) => channel.name)).toEqual(['Green Kitchen']);

    expect((await gw.api('POST', `/api/${S}/channels/search/by-view`, { view: 'SIDEWAYS' })).status).toBe(400);
    expect((await gw.api('POST', `/api/${S}/channels/search/by-view`, { startCursor: 'garbage' })).status).toBe(400);
  });

  it('needs the session WORKING (422)', async () => {
    await gw.api('POST', '/api/sessions', { name: 'chan-idle', engine: 'SANDBOX' });
    await waitForStatus(gw, 'chan-idle', 'SCAN_QR_CODE');
    expect((await gw.api('GET', '/api/chan-idle/channels')).status).toBe(422);
  });
});
