import { waitFor } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startGateway, type TestGateway, workingSession } from '../support/gateway.js';

/**
 * Paced sending (docs/api.md "Paced sending") against a real local gateway with SANDBOX sessions:
 * the queue's answers over real HTTP. The pacing rules' arithmetic is in pacing.test.ts; here the
 * limits are chosen so that every outcome is decided by the rules, never by how fast the machine is
 * (a second send under `perMinute: 1` waits close to a minute, far beyond any wait asked for).
 */
let gw: TestGateway;
const CHAT = '15550001111@c.us';

beforeAll(async () => {
  gw = await startGateway();
});
afterAll(async () => {
  await gw?.close();
});

/** A send with the wait header (or none), as a client of the extension sends it. */
async function send(session: string, body: Record<string, unknown>, wait?: string, path = '/api/sendText') {
  const response = await fetch(gw.url + path, {
    method: 'POST',
    headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json', ...(wait === undefined ? {} : { 'x-switchboard-wait': wait }) },
    body: JSON.stringify({ session, chatId: CHAT, ...body }),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

const text = (n: number) => ({ text: `message ${n}` });

describe('sessions without `sending`', () => {
  it('send as before: 201 with the message, nothing queued', async () => {
    await workingSession(gw, 'plain');
    const sent = await send('plain', text(1), '0');
    expect(sent.status).toBe(201);
    expect(sent.body['body']).toBe('message 1');
    expect((await gw.api('GET', '/api/plain/queue')).body).toEqual({ total: 0, items: [] });
  });
});

describe('a send waits for its slot', () => {
  beforeAll(async () => {
    await workingSession(gw, 'paced', { config: { sending: { perMinute: 1 } } });
  });

  it('answers 201 with the message when it goes out within the wait', async () => {
    const sent = await send('paced', text(1), '5000');
    expect(sent.status).toBe(201);
    expect(sent.body).toMatchObject({ body: 'message 1', fromMe: true });
  });

  it('answers 202 with the queued send when its slot is beyond the wait, and lists it', async () => {
    const queued = await send('paced', text(2), '0');
    expect(queued.status).toBe(202);
    expect(queued.body).toMatchObject({ session: 'paced', chatId: CHAT, route: '/api/sendText', state: 'queued', position: 0 });
    expect(queued.body['id']).toMatch(/^[0-9A-Za-z]{8,64}$/);
    const again = await send('paced', { ...text(3), id: 'CLIENTID0001' }, '0');
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ id: 'CLIENTID0001', position: 1 });

    const listed = await gw.api('GET', '/api/paced/queue');
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ total: 2, items: [{ id: queued.body['id'], state: 'queued' }, { id: 'CLIENTID0001' }] });
    expect((await gw.api('GET', '/api/paced/queue?limit=1&offset=1')).body).toMatchObject({ total: 2, items: [{ id: 'CLIENTID0001' }] });
  });

  it('refuses a second queued send with the id of one waiting: 409 naming body.id', async () => {
    const twice = await send('paced', { ...text(4), id: 'CLIENTID0001' }, '0');
    expect(twice.status).toBe(409);
    expect(twice.body['details']).toEqual([expect.objectContaining({ path: 'body.id' })]);
  });

  it('cancels a queued send: 204, then it is gone (404)', async () => {
    expect((await gw.api('DELETE', '/api/paced/queue/CLIENTID0001')).status).toBe(204);
    const listed = (await gw.api('GET', '/api/paced/queue')).body as { total: number; items: Array<{ id: string }> };
    expect(listed.total).toBe(1);
    expect(listed.items.map(({ id }) => id)).not.toContain('CLIENTID0001');
    const gone = await gw.api('DELETE', '/api/paced/queue/CLIENTID0001');
    expect(gone.status).toBe(404);
    expect((gone.body as { message: string }).message).toContain('CLIENTID0001');
  });

  it('paces media sends too, and not reactions', async () => {
    const image = await send(
      'paced',
      { file: { mimetype: 'image/png', filename: 'a.png', data: 'iVBORw0KGgo=' }, caption: 'x' },
      '0',
      '/api/sendImage',
    );
    expect(image.status).toBe(202);
    expect(image.body['route']).toBe('/api/sendImage');
    const reaction = await gw.api('PUT', '/api/reaction', { session: 'paced', messageId: `true_${CHAT}_AAAAAAAAAAAA`, reaction: '👍' });
    expect(reaction.status).not.toBe(202);
  });

  it('counts the held sends and the depth in the metrics', async () => {
    const metrics = (await gw.api('GET', '/metrics')).body as string;
    expect(metrics).toMatch(/switchboard_send_queue_depth\{session="paced"\} 2/);
    expect(metrics).toMatch(/switchboard_send_queue_held_total\{session="paced",reason="rate"\} [1-9]/);
    expect(metrics).toMatch(/switchboard_send_queue_wait_seconds_count\{session="paced"\} 1/);
  });

  it('answers 404 for the queue of a session that does not exist', async () => {
    expect((await gw.api('GET', '/api/nosuch/queue')).status).toBe(404);
  });
});

describe('a session that is not working', () => {
  it('answers a send without an id 422 as an unpaced send does, and queues nothing', async () => {
    await gw.api('POST', '/api/sessions', { name: 'stopped', start: false, config: { sending: { perMinute: 5 } } });
    const refused = await send('stopped', text(1), '0');
    expect(refused.status).toBe(422);
    expect((await gw.api('GET', '/api/stopped/queue')).body).toEqual({ total: 0, items: [] });
  });
});

describe('a send queued while its session does not work', () => {
  it('waits, and goes out once the session is WORKING', async () => {
    await gw.api('POST', '/api/sessions', { name: 'later', start: false, config: { sending: {} } });
    const queued = await send('later', { ...text(1), id: 'LATER0000001' }, '0');
    expect(queued.status).toBe(202);
    expect((await gw.api('GET', '/api/later/queue')).body).toMatchObject({ total: 1, items: [{ id: 'LATER0000001' }] });
    await gw.api('POST', '/api/sessions/later/start');
    expect((await gw.api('POST', '/api/later/sandbox/simulate', { kind: 'scan' })).status).toBe(201);
    await waitFor(async () => ((await gw.api('GET', '/api/later/queue')).body as { total: number }).total === 0, 'the queue to empty');
    const history = (await gw.api('GET', `/api/later/chats/${CHAT}/messages?limit=10`)).body as Array<{ id: string }>;
    expect(history.map(({ id }) => id)).toEqual([`true_${CHAT}_LATER0000001`]);
  });
});

describe('a full queue', () => {
  it('answers 429 with Retry-After: when its next send is due', async () => {
    await workingSession(gw, 'full', { config: { sending: { perMinute: 1, maxQueued: 1 } } });
    expect((await send('full', text(1), '5000')).status).toBe(201);
    expect((await send('full', text(2), '0')).status).toBe(202);
    const refused = await send('full', text(3), '0');
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ details: { session: 'full', limit: 1 } });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
  });
});

describe('queued sends go out', () => {
  it('in order, each once, with the id the 202 gave: its events follow', async () => {
    await workingSession(gw, 'spaced', {
      config: { sending: { delay: { minMs: 150, maxMs: 300 }, typing: { msPerChar: 1, minMs: 10, maxMs: 50 } } },
    });
    const answers = [];
    for (let n = 1; n <= 4; n++) answers.push(await send('spaced', text(n), '0'));
    const ids = answers.map((answer) => String(answer.body['id']));
    expect(answers.slice(1).every((answer) => answer.status === 202)).toBe(true);
    await waitFor(async () => ((await gw.api('GET', '/api/spaced/queue')).body as { total: number }).total === 0, 'the queue to empty');
    const history = await waitFor(async () => {
      const page = (await gw.api('GET', `/api/spaced/chats/${CHAT}/messages?limit=10&sortOrder=asc`)).body as Array<{ id: string; body: string }>;
      return page.length >= 4 ? page : null;
    }, 'the four messages in the history');
    expect(history.map(({ body }) => body)).toEqual(['message 1', 'message 2', 'message 3', 'message 4']);
    for (const id of ids.slice(1)) expect(history.filter((message) => message.id.includes(id))).toHaveLength(1);
  });
});

describe('validation at the edge', () => {
  it.each([
    [{ perMinute: 0 }, 'body.config.sending.perMinute'],
    [{ perChatPerMinute: 601 }, 'body.config.sending.perChatPerMinute'],
    [{ delay: { minMs: 500, maxMs: 100 } }, 'body.config.sending.delay.maxMs'],
    [{ warmup: { start: 50, step: 5, max: 10 } }, 'body.config.sending.warmup.max'],
    [{ typing: { msPerChar: -1 } }, 'body.config.sending.typing.msPerChar'],
    [{ maxQueued: 0 }, 'body.config.sending.maxQueued'],
    [{ perHour: 5 }, 'body.config.sending'],
  ])('refuses sending %j naming %s', async (sending, path) => {
    const created = await gw.api('POST', '/api/sessions', { name: 'invalid', start: false, config: { sending } });
    expect(created.status).toBe(400);
    expect((created.body as { details: Array<{ path: string }> }).details.map((issue) => issue.path)).toContain(path);
  });

  it.each(['abc', '-1', '60001', '1.5'])('refuses X-Switchboard-Wait: %s naming the header', async (wait) => {
    await gw.api('POST', '/api/sessions', { name: 'waits', config: { sending: {} } });
    const refused = await send('waits', text(1), wait);
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body['details'])).toContain('headers.x-switchboard-wait');
  });
});
