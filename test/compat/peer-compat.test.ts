import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname } from 'node:path';
import { waitFor } from '@switchboard/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, type ContractGateway, mode, startGateway, waitForStatus } from '../contract/harness.js';
import { renderCompatibility, COMPATIBILITY_DOC } from './compatibility-doc.js';
import { loadPeerOperations, type PeerOperation } from './peer-document.js';
import { MODE_DIFFERENCES } from './mode-differences.js';
import { PEER_DIFFERENCES, type PeerDifference } from './peer-differences.js';

/**
 * Issue 16's proof: every operation of the peer product's OpenAPI document, called on this
 * gateway (SANDBOX, session `default`, the peer's own default) with the request the document
 * gives, answers the documented status with a body its response schema accepts. What differs on
 * purpose is listed, with a reason, in peer-differences.ts; anything else fails, and so does a
 * listed difference that is gone, so the list only shrinks.
 */

const SESSION = 'default';
/** Path parameters the document leaves without an example, as a client would fill them. */
const PATH_VALUES: Record<string, string> = {
  session: SESSION,
  chatId: '123456789@c.us',
  messageId: 'true_123456789@c.us_BAE6A33293978B16',
  lid: '123123123@lid',
  phoneNumber: '123456789',
  labelId: '1',
  id: '123456789@c.us',
};
/** The group and the member the document's Groups examples name. */
const GROUP_ID = '123123123@g.us';
const MEMBER_ID = '123456789@c.us';
/** Required query parameters the document leaves without an example or default. */
const QUERY_VALUES: Record<string, string> = { phone: '123456789', text: 'Hi there!', chatId: '123456789@c.us' };

type Outcome =
  | { readonly differs: 'none' }
  | { readonly differs: 'not-served'; readonly status: number }
  | { readonly differs: 'status'; readonly status: number; readonly body: unknown }
  | { readonly differs: 'schema'; readonly errors: string };

/**
 * The document's examples name files and webhooks on the internet: tests dial no address but
 * loopback, so every URL in a body is pointed at this server, which answers any path with a
 * small file of the type its extension says.
 */
const FILE_TYPES: Record<string, string> = {
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.png': 'image/png',
  '.pdf': 'application/pdf',
  '.opus': 'audio/ogg',
  '.ogg': 'audio/ogg',
  '.mp4': 'video/mp4',
};
async function fileServer(): Promise<{ server: Server; base: string }> {
  const server = createServer((request, response) => {
    const type = FILE_TYPES[extname(new URL(request.url ?? '/', 'http://x').pathname)] ?? 'application/octet-stream';
    request.resume();
    response.writeHead(200, { 'content-type': type }).end(Buffer.from('compat test file'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function toLoopback(value: unknown, base: string): unknown {
  if (typeof value === 'string') return value.replace(/https?:\/\/[^/\s"]+/g, base);
  if (Array.isArray(value)) return value.map((member) => toLoopback(member, base));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, toLoopback(member, base)]));
}

function requestOf(operation: PeerOperation, files: string): { url: string; body: unknown } {
  let path = operation.path;
  const query = new URLSearchParams();
  for (const parameter of operation.parameters) {
    const schema = parameter.schema ?? {};
    const value = schema.example ?? schema.default;
    if (parameter.in === 'path') {
      const filled =
        operation.path.startsWith('/api/apps/') && parameter.name === 'id'
          ? APP_ID
          : typeof value === 'string' && parameter.name !== 'session'
            ? value
            : (PATH_VALUES[parameter.name] ?? 'x');
      path = path.replace(`{${parameter.name}}`, encodeURIComponent(filled));
    } else if (parameter.in === 'query' && (parameter.required || schema.example !== undefined)) {
      for (const each of Array.isArray(value) ? value : [value ?? QUERY_VALUES[parameter.name] ?? 'x']) query.append(parameter.name, String(each));
    }
  }
  const search = query.toString();
  return { url: search ? `${path}?${search}` : path, body: toLoopback(operation.body, files) };
}

async function call(gw: ContractGateway, operation: PeerOperation, files: string): Promise<Outcome> {
  const { url, body } = requestOf(operation, files);
  const response = await fetch(gw.url + url, {
    method: operation.method,
    headers: { 'x-api-key': ADMIN_KEY, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  const json = (response.headers.get('content-type') ?? '').includes('application/json');
  const parsed: unknown = json && text !== '' ? JSON.parse(text) : text;
  const routeless = response.status === 405 || (response.status === 404 && /^no route /.test((parsed as { message?: string }).message ?? ''));
  if (routeless) return { differs: 'not-served', status: response.status };
  if (!operation.success.includes(response.status)) return { differs: 'status', status: response.status, body: parsed };
  if (operation.validate && json && !operation.validate(parsed)) {
    return { differs: 'schema', errors: JSON.stringify(operation.validate.errors?.slice(0, 5)) };
  }
  return { differs: 'none' };
}

/** The peer's clients assume a session `default` that works: made again whenever an operation undid it. */
async function ensureWorking(gw: ContractGateway): Promise<void> {
  const res = await gw.api('GET', `/api/sessions/${SESSION}`);
  if (res.status === 404) {
    await gw.api('POST', '/api/sessions', { name: SESSION, engine: 'SANDBOX', start: true });
  } else if (res.body.status === 'STOPPED' || res.body.status === 'FAILED') {
    await gw.api('POST', `/api/sessions/${SESSION}/start`);
  }
  // A session that was paired before starts WORKING again (cluster mode keeps the engine's pairing).
  if ((await settled(gw)) === 'WORKING') return;
  await gw.api('POST', `/api/${SESSION}/sandbox/simulate`, { kind: 'scan' });
  await waitForStatus(gw, SESSION, 'WORKING');
  // The message the document's bodies name (forward it, react to it, ...), received.
  await gw.api('POST', `/api/${SESSION}/sandbox/simulate`, {
    kind: 'message',
    from: '11111111111@c.us',
    id: 'AAAAAAAAAAAAAAAAAAAA',
    body: 'Hi there!',
  });
}

/** Waits for the status a start settles in: waiting for a scan, or paired already. */
async function settled(gw: ContractGateway): Promise<string> {
  const deadline = Date.now() + 15_000;
  let last = '';
  while (Date.now() < deadline) {
    const res = await gw.api('GET', `/api/sessions/${SESSION}`);
    last = res.status === 200 ? (res.body.status as string) : `HTTP ${res.status}`;
    if (last === 'SCAN_QR_CODE' || last === 'WORKING') return last;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`session '${SESSION}' did not reach SCAN_QR_CODE or WORKING within 15 s (last: ${last})`);
}

/** What some operations need first, as a client would have it: a name free to create, a session to pair. */
const PRECONDITIONS: Record<string, (gw: ContractGateway) => Promise<unknown>> = {
  'POST /api/sessions': (gw) => gw.api('DELETE', `/api/sessions/${SESSION}`),
  'GET /api/{session}/auth/qr': (gw) => loggedOut(gw),
  'GET /api/apps/{id}': (gw) => callsApp(gw),
  'PUT /api/apps/{id}': (gw) => callsApp(gw),
  'DELETE /api/apps/{id}': (gw) => callsApp(gw),
  'POST /api/{session}/auth/request-code': (gw) => loggedOut(gw),
  // The chat's messages are gone when DELETE /api/{session}/chats/{chatId} came before.
  'GET /api/{session}/chats/{chatId}/messages': (gw) => sentMessage(gw),
  'GET /api/{session}/chats/{chatId}/messages/{messageId}': (gw) => sentMessage(gw),
  'POST /api/{session}/calls/reject': (gw) => gw.api('POST', `/api/${SESSION}/sandbox/simulate`, CALL),
};

/** The message the document's chat operations name (PATH_VALUES.messageId), sent with that id and in the history. */
async function sentMessage(gw: ContractGateway): Promise<void> {
  const chatId = PATH_VALUES.chatId!;
  const messageId = PATH_VALUES.messageId!;
  await gw.api('POST', '/api/sendText', { session: SESSION, chatId, text: 'Hi there!', id: messageId.split('_').at(-1) });
  const url = `/api/${SESSION}/chats/${encodeURIComponent(chatId)}/messages/${encodeURIComponent(messageId)}`;
  await waitFor(async () => (await gw.api('GET', url)).status === 200 || undefined, 'the sent message in the history');
}

/** The call the document's reject request names, ringing. */
const CALL = { kind: 'call', status: 'offer', id: 'ABCDEFGABCDEFGABCDEFGABCDEFG', from: '11111111111@c.us' };

/** The app the `/api/apps/{id}` operations name (APP_ID), on the session. */
const APP_ID = 'app_compat';
async function callsApp(gw: ContractGateway): Promise<void> {
  const apps = await gw.api('GET', `/api/apps?session=${SESSION}`);
  if (apps.body.some((app: { id?: string }) => app.id === APP_ID)) return;
  const made = await gw.api('POST', '/api/apps', {
    id: APP_ID,
    session: SESSION,
    app: 'calls',
    config: { dm: { reject: false }, group: { reject: false } },
  });
  expect(made.status).toBe(201);
}

/**
 * The group the `/groups/{id}` operations name (the document's example id), made afresh before
 * each with you its superadmin, as a client would call them on a group it runs. The member the
 * document's bodies name is in it, except before an add.
 */
async function exampleGroup(gw: ContractGateway, withMember: boolean): Promise<void> {
  const simulate = (body: Record<string, unknown>) => gw.api('POST', `/api/${SESSION}/sandbox/simulate`, body);
  // Not in it (404) when an operation before left or deleted it.
  await simulate({ kind: 'group-leave', groupId: GROUP_ID });
  const joined = await simulate({ kind: 'group-join', groupId: GROUP_ID, role: 'superadmin', participants: withMember ? [MEMBER_ID] : [] });
  expect(joined.status).toBe(201);
}

async function loggedOut(gw: ContractGateway): Promise<void> {
  await gw.api('POST', `/api/sessions/${SESSION}/logout`);
  await waitForStatus(gw, SESSION, 'SCAN_QR_CODE');
}

function matches(listed: PeerDifference | undefined, outcome: Outcome): boolean {
  if (!listed) return outcome.differs === 'none';
  if (listed.differs !== outcome.differs) return false;
  return listed.differs !== 'status' || (outcome.differs === 'status' && listed.status === outcome.status);
}

/**
 * In cluster mode the stop takes away the gateway replica that answers, for good here (nothing
 * restarts a test's process): it is asked of a replica of its own, which then has no sessions for
 * `close()` to delete, while the test's gateway stays to clean up after itself.
 */
const STOP = 'POST /api/server/stop';
async function stopReplica(operation: PeerOperation, files: string): Promise<Outcome> {
  const replica = await startGateway();
  try {
    return await call(replica, operation, files);
  } finally {
    await replica.close();
  }
}

/** Runs last what would take the gateway or the session away from the operations after it. */
const LAST = ['DELETE /api/sessions/{session}', 'POST /api/sessions/{session}/logout', 'POST /api/sessions/logout', 'POST /api/server/stop'];

describe('the peer document, operation by operation (issue 16)', () => {
  const operations = loadPeerOperations().sort((a, b) => Number(LAST.includes(a.key)) - Number(LAST.includes(b.key)));
  const outcomes = new Map<string, Outcome>();
  let gw: ContractGateway;
  let files: { server: Server; base: string };

  beforeAll(async () => {
    files = await fileServer();
    gw = await startGateway();
    for (const operation of operations) {
      if (operation.key === STOP && mode === 'cluster') {
        outcomes.set(operation.key, await stopReplica(operation, files.base));
        continue;
      }
      await ensureWorking(gw);
      await PRECONDITIONS[operation.key]?.(gw);
      if (operation.path.startsWith('/api/{session}/groups/{id}')) await exampleGroup(gw, !operation.path.endsWith('/participants/add'));
      outcomes.set(operation.key, await call(gw, operation, files.base));
    }
    const served = [...outcomes.values()].filter((outcome) => outcome.differs !== 'not-served').length;
    // For whoever updates the list: each operation's outcome as this run saw it.
    if (process.env.PEER_COMPAT_OUTCOMES) writeFileSync(process.env.PEER_COMPAT_OUTCOMES, JSON.stringify(Object.fromEntries(outcomes), null, 2));
    console.log(`peer compatibility: served ${served} of ${operations.length} operations of the peer document`);
  }, 120_000);
  afterAll(async () => {
    await gw?.close();
    files?.server.close();
  });

  it.each(operations.map((operation) => [operation.key, operation] as const))('%s', (key) => {
    const outcome = outcomes.get(key);
    const inMode = MODE_DIFFERENCES[mode][key];
    const listed = inMode ? (inMode.differs === 'none' ? undefined : inMode) : PEER_DIFFERENCES[key];
    const expected = listed ? `the listed difference (${JSON.stringify(listed)})` : 'the documented status and a body its schema accepts';
    expect(matches(listed, outcome!), `${key}: expected ${expected}, got ${JSON.stringify(outcome)}`).toBe(true);
  });

  it('lists differences only of operations the document has', () => {
    const keys = new Set(operations.map((operation) => operation.key));
    const listed = [...Object.keys(PEER_DIFFERENCES), ...Object.keys(MODE_DIFFERENCES.local), ...Object.keys(MODE_DIFFERENCES.cluster)];
    expect(listed.filter((key) => !keys.has(key))).toEqual([]);
  });

  it('docs/compatibility.md is what the catalog and the differences make (UPDATE_COMPATIBILITY_DOC=1 writes it)', () => {
    const rendered = renderCompatibility(operations);
    if (process.env.UPDATE_COMPATIBILITY_DOC === '1') writeFileSync(COMPATIBILITY_DOC, rendered);
    expect(readFileSync(COMPATIBILITY_DOC, 'utf8')).toBe(rendered);
  });
});
