import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, type ContractGateway, startGateway, workingSession } from './harness.js';

/**
 * `POST /mcp` (issue 16): the API's operations as Model Context Protocol tools, driven by the
 * official SDK's own client over real HTTP, under the caller's key and what it may do.
 */
const SESSION = 'mcp';
const CHAT = '11111111111@c.us';

let gw: ContractGateway;
let controlKey: string;
const clients: Client[] = [];

async function connect(key: string | null): Promise<Client> {
  const client = new Client({ name: 'switchboard-contract', version: '1.0.0' });
  const headers: Record<string, string> = key === null ? {} : { 'x-api-key': key };
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

function textOf(result: Awaited<ReturnType<Client['callTool']>>): string {
  return ((result as CallToolResult).content[0] as { text: string }).text;
}

beforeAll(async () => {
  gw = await startGateway();
  await workingSession(gw, SESSION, { engine: 'SANDBOX' });
  const made = await gw.api('POST', '/api/keys/control', { session: SESSION });
  if (made.status !== 201) throw new Error(`control key: ${made.status} ${JSON.stringify(made.body)}`);
  controlKey = made.body.key;
});
afterAll(async () => {
  for (const client of clients) await client.close();
  await gw?.close();
});

describe('POST /mcp: the API as MCP tools (issue 16)', () => {
  it('is in the OpenAPI document, as the peer lists it: POST only, under Apps (issue 26)', async () => {
    const doc = (await gw.api('GET', '/docs/openapi.json', undefined, null)).body;
    expect(Object.keys(doc.paths['/mcp'])).toEqual(['post']);
    const post = doc.paths['/mcp'].post;
    expect(post.tags).toEqual(['Apps']);
    expect(post.summary).toContain('Model Context Protocol');
    expect(post.requestBody.content['application/json']).toBeDefined();
    expect(Object.keys(post.responses)).toEqual(expect.arrayContaining(['200', '202', '400', '401']));
  });

  it('lists the operations as tools, with the schemas their routes validate with', async () => {
    const client = await connect(ADMIN_KEY);
    expect(client.getServerVersion()?.name).toBe('switchboard');
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['sendText', 'getSessions', 'postSessionsBySessionStart', 'getBySessionAuthQr', 'postKeys']));
    expect(names).not.toContain('postMcp');
    const sendText = tools.find((tool) => tool.name === 'sendText')!;
    expect(sendText.description).toContain('POST /api/sendText');
    expect(Object.keys(sendText.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['session', 'chatId', 'text']));
    expect(sendText.inputSchema.required).toEqual(expect.arrayContaining(['chatId', 'text']));
  });

  it('sends a text on a SANDBOX session, as POST /api/sendText does', async () => {
    const client = await connect(ADMIN_KEY);
    const result = await client.callTool({ name: 'sendText', arguments: { session: SESSION, chatId: CHAT, text: 'hello over MCP' } });
    expect(result.isError).toBe(false);
    const message = JSON.parse(textOf(result));
    expect(message).toMatchObject({ fromMe: true, body: 'hello over MCP' });
    const status = await client.callTool({ name: 'getSessionsBySession', arguments: { session: SESSION } });
    expect(JSON.parse(textOf(status))).toMatchObject({ name: SESSION, status: 'WORKING' });
  });

  it('refuses what the key may not do, with the route’s own 403, and lists only what it may', async () => {
    const client = await connect(controlKey);
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('postSessionsBySessionRestart');
    expect(names).not.toContain('sendText');
    expect(names).not.toContain('postKeys');
    const refused = await client.callTool({ name: 'sendText', arguments: { session: SESSION, chatId: CHAT, text: 'not allowed' } });
    expect(refused.isError).toBe(true);
    expect(JSON.parse(textOf(refused))).toMatchObject({ statusCode: 403, message: expect.stringContaining('control key') });
    const read = await client.callTool({ name: 'getSessionsBySession', arguments: { session: SESSION } });
    expect(read.isError).toBe(false);
  });

  it('offers a control key no screenshot (the page shows the account’s chats once paired), and refuses it with the route’s 403', async () => {
    const admin = (await (await connect(ADMIN_KEY)).listTools()).tools.map((tool) => tool.name);
    expect(admin).toContain('getScreenshot');
    const client = await connect(controlKey);
    expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain('getScreenshot');
    const refused = await client.callTool({ name: 'getScreenshot', arguments: { session: SESSION } });
    expect(refused.isError).toBe(true);
    expect(JSON.parse(textOf(refused))).toMatchObject({ statusCode: 403, message: expect.stringContaining('control key') });
  });

  it('answers bad input with the route’s 400 naming the field', async () => {
    const client = await connect(ADMIN_KEY);
    const result = await client.callTool({ name: 'sendText', arguments: { session: SESSION, text: 'to nobody' } });
    expect(result.isError).toBe(true);
    const error = JSON.parse(textOf(result));
    expect(error.statusCode).toBe(400);
    expect(JSON.stringify(error)).toContain('chatId');
  });

  it('names an unknown tool', async () => {
    const client = await connect(ADMIN_KEY);
    await expect(client.callTool({ name: 'noSuchTool', arguments: {} })).rejects.toThrow(/unknown tool 'noSuchTool'/);
  });

  it('needs an API key, as the API does', async () => {
    await expect(connect(null)).rejects.toThrow(/401|missing API key/);
    const res = await fetch(`${gw.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ statusCode: 401, message: expect.stringContaining('X-Api-Key') });
  });

  it('is stateless: POST only, and a POST without a JSON-RPC body is a 400 saying what to send', async () => {
    const get = await fetch(`${gw.url}/mcp`, { headers: { 'x-api-key': ADMIN_KEY } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    const empty = await fetch(`${gw.url}/mcp`, { method: 'POST', headers: { 'x-api-key': ADMIN_KEY } });
    expect(empty.status).toBe(400);
    expect(await empty.json()).toMatchObject({ message: expect.stringContaining('JSON-RPC') });
  });
});
