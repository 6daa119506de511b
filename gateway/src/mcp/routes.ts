import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { ErrorBody } from '@switchboard/protocol';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ApiKeyAuthenticator } from '../auth/authenticator.js';
import { authorize, ruleFor } from '../auth/authorize.js';
import { type Principal, sessionLimit } from '../auth/principal.js';
import { ApiError } from '../http/errors.js';
import { type McpTool, type OpenApiDocument, requestOf, toolsOf } from './tools.js';

export interface McpDeps {
  readonly auth: ApiKeyAuthenticator;
  readonly version: string;
}

const KEY_HEADER = 'the X-Api-Key header';

/**
 * For the OpenAPI document (the peer's lists `POST /mcp` too): the body is checked by the MCP
 * server, which answers a JSON-RPC error naming what is wrong, not by a schema here, so that a
 * request without a key is still a 401 whatever its body.
 */
const McpMessage = z.unknown().meta({
  description: 'A JSON-RPC 2.0 message of the Model Context Protocol (streamable HTTP), e.g. {"jsonrpc":"2.0","id":1,"method":"tools/list"}',
  examples: [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }],
});
const McpAnswer = z
  .looseObject({ jsonrpc: z.literal('2.0'), id: z.union([z.string(), z.number()]).nullable() })
  .meta({ description: 'The JSON-RPC response to a request: its `result`, or an `error`' });
const MCP_SCHEMA = {
  tags: ['Apps'],
  summary: 'Model Context Protocol server: the API’s operations as tools',
  description:
    'Stateless streamable HTTP: each POST is answered on its own, in JSON (send `Accept: application/json, text/event-stream`). A tool call is the same request to the same route, with the same key: it is validated, authorized and answered as that route does.',
  body: McpMessage,
  response: {
    200: McpAnswer,
    202: z.undefined().meta({ description: 'A notification, accepted: no body' }),
    400: ErrorBody.meta({ description: 'No JSON-RPC message in the body' }),
    401: ErrorBody,
  },
};

/**
 * `POST /mcp`: a Model Context Protocol server over streamable HTTP (stateless: each POST is
 * answered on its own, in JSON), whose tools are the API's operations (tools.ts). A call is
 * made as the same HTTP request to the same route (fastify inject) with the caller's key, so a
 * tool validates, authorizes and answers exactly as its route does: a key refused there is
 * refused here, with the route's 403; bad arguments get the route's 400 naming the field.
 */
export async function mcpRoutes(app: FastifyInstance, deps: McpDeps): Promise<void> {
  // Made on the first request, when the document (built from every registered route) exists.
  let tools: Map<string, McpTool> | null = null;
  const toolTable = (): Map<string, McpTool> => {
    tools ??= new Map(toolsOf(app.swagger() as OpenApiDocument).map((tool) => [tool.name, tool]));
    return tools;
  };

  app.post('/mcp', { schema: MCP_SCHEMA }, async (request, reply) => {
    const key = request.headers['x-api-key'];
    const principal = deps.auth.authenticate(key, KEY_HEADER);
    if (request.body == null) {
      throw new ApiError(
        400,
        'an MCP request is a JSON-RPC message in the body (Content-Type: application/json), e.g. {"jsonrpc":"2.0","id":1,"method":"tools/list"}',
      );
    }
    const server = mcpServer(app, deps, toolTable(), principal, key as string);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    reply.hijack();
    await transport.handleRequest(request.raw, reply.raw, request.body);
  });

  // Stateless: there is no stream to open (GET) and no session to end (DELETE).
  const postOnly = () => {
    throw new ApiError(405, 'this MCP server is stateless: send JSON-RPC messages with POST /mcp');
  };
  app.get('/mcp', { schema: { hide: true } }, async (_request, reply) => {
    reply.header('allow', 'POST');
    postOnly();
  });
  app.delete('/mcp', { schema: { hide: true } }, async (_request, reply) => {
    reply.header('allow', 'POST');
    postOnly();
  });
}

function mcpServer(app: FastifyInstance, deps: McpDeps, tools: Map<string, McpTool>, principal: Principal, key: string): McpServer {
  // Tools with JSON Schemas of their own (from the OpenAPI document), so the protocol-level handlers.
  const mcp = new McpServer({ name: 'switchboard', version: deps.version }, { capabilities: { tools: {} } });
  const server = mcp.server;
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [...tools.values()].filter((tool) => mayUse(principal, tool, deps.auth)).map(described),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const tool = tools.get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `unknown tool '${request.params.name}': tools/list names the tools`);
    const { url, payload } = requestOf(tool, request.params.arguments ?? {});
    const response = await app.inject({
      method: tool.method as 'GET',
      url,
      headers: { 'x-api-key': key, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
    const type = String(response.headers['content-type'] ?? '');
    const isError = response.statusCode >= 400;
    if (type.startsWith('image/')) {
      return { content: [{ type: 'image', data: response.rawPayload.toString('base64'), mimeType: type.split(';')[0]! }], isError };
    }
    // The route's answer as it is: JSON (an error body names status, field and reason), or text.
    const text =
      type.includes('json') || type.startsWith('text/') || response.rawPayload.length === 0
        ? response.body || `${response.statusCode}`
        : `${response.rawPayload.length} bytes of ${type || 'data'}; download them with ${tool.method} ${url} and the X-Api-Key header`;
    return { content: [{ type: 'text', text }], isError };
  });
  return mcp;
}

/** Listed: the tools the key may use at all (a key limited to a session, for that session). */
function mayUse(principal: Principal, tool: McpTool, auth: ApiKeyAuthenticator): boolean {
  if (tool.access === null) return true;
  try {
    authorize(principal, ruleFor(tool.access, tool.method), sessionLimit(principal) ?? undefined, auth.incarnations);
    return true;
  } catch {
    return false;
  }
}

function described(tool: McpTool): Tool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    annotations: { readOnlyHint: tool.method === 'GET', destructiveHint: tool.method === 'DELETE', openWorldHint: true },
  };
}
