import { createRequire } from 'node:module';
import { join } from 'node:path';

/**
 * Runs the peer's n8n node (n8n-nodes-waha, built by scripts/peer-clients.sh) the way n8n does,
 * with n8n's own code where it matters: the node is declarative (its operations are `routing`
 * descriptions, made from the peer's OpenAPI document), so n8n-workflow's `Workflow` fills the
 * node's parameters with their defaults and its `RoutingNode` turns them into the request,
 * resolving expressions such as `={{ $json.payload.from }}` against the input item. This harness
 * only supplies what n8n-core would (IExecuteSingleFunctions: parameters, credentials, HTTP) and,
 * for the trigger node, IWebhookFunctions.
 */

type Json = Record<string, unknown>;
interface Item {
  json: Json;
}
interface NodeTypeLike {
  description: { properties: unknown[]; version: number; credentials?: { name: string }[] };
  webhook?: (this: unknown) => Promise<{ workflowData?: Item[][] }>;
}
interface RequestOptions {
  method?: string;
  url: string;
  baseURL?: string;
  qs?: Record<string, unknown>;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface N8nNode {
  /** Runs one operation of the WAHA node on `items` (one by default): the output items' JSON. */
  run(resource: string, operation: string, parameters: Json, items?: Json[]): Promise<Json[]>;
  /** Hands a received webhook body to the WAHA Trigger node: its outputs, one per event it lists. */
  trigger(body: Json): Promise<{ outputs: string[]; data: Item[][] | undefined }>;
}

export function loadN8nNode(dir: string, credentials: { url: string; apiKey: string }): N8nNode {
  const require = createRequire(join(dir, 'package.json'));
  // The node's own n8n-workflow, in the built node's folder (not a dependency of this repository).
  const { Workflow, RoutingNode } = require(join(dir, 'node_modules', 'n8n-workflow')) as {
    Workflow: new (parameters: Json) => { getNode(name: string): Json; expression: Expression };
    RoutingNode: new (...args: unknown[]) => { runNode(...args: unknown[]): Promise<Item[][]> };
  };
  const { WAHA } = require('./dist/nodes/WAHA/WAHA.node.js') as { WAHA: new () => { nodeVersions: Record<number, NodeTypeLike> } };
  const { WAHATrigger } = require('./dist/nodes/WAHA/WAHATrigger.node.js') as {
    WAHATrigger: new () => { nodeVersions: Record<number, NodeTypeLike & { description: { outputNames: string[] } }> };
  };
  const { WAHAApi } = require('./dist/credentials/WAHAApi.credentials.js') as {
    WAHAApi: new () => { name: string; authenticate: { type: string; properties: { headers: Record<string, string> } } };
  };
  const action = new WAHA().nodeVersions[202409]!;
  const trigger = new WAHATrigger().nodeVersions[202409]!;
  const credentialType = new WAHAApi();
  const nodeTypes = { getByName: () => action, getByNameAndVersion: () => action };

  return {
    async run(resource, operation, parameters, inputs = [{}]) {
      const workflow = new Workflow({
        nodes: [
          {
            id: '1',
            name: 'WAHA',
            type: 'n8n-nodes-waha.waha',
            typeVersion: 202409,
            position: [0, 0],
            parameters: { resource, operation, ...parameters },
          },
        ],
        connections: {},
        active: false,
        nodeTypes,
      });
      const node = workflow.getNode('WAHA');
      const items: Item[] = inputs.map((json) => ({ json }));
      const executeData = { node, data: { main: [items] }, source: null };
      const additionalData = { timezone: 'UTC' };
      const evaluate = (value: unknown, itemIndex: number, additionalKeys: Json = {}) =>
        workflow.expression.getParameterValue(value, null, 0, itemIndex, 'WAHA', items, 'manual', 'UTC', additionalKeys, executeData);
      const singleFunctions = (
        _workflow: unknown,
        _run: unknown,
        _runIndex: number,
        _input: unknown,
        _data: unknown,
        _node: unknown,
        itemIndex: number,
      ) => ({
        getNode: () => node,
        getExecuteData: () => executeData,
        getNodeParameter: (name: string, fallback?: unknown) => evaluate(lookup(node.parameters as Json, name) ?? fallback, itemIndex),
        helpers: {
          httpRequest: (options: RequestOptions) => send(options),
          httpRequestWithAuthentication: (type: string, options: RequestOptions) => {
            if (type !== credentialType.name) throw new Error(`no credentials of type ${type}`);
            const headers = Object.fromEntries(
              Object.entries(credentialType.authenticate.properties.headers).map(([name, value]) => [
                name,
                String(evaluate(value, itemIndex, { $credentials: credentials })),
              ]),
            );
            return send({ ...options, headers: { ...options.headers, ...headers } });
          },
        },
      });
      const routing = new RoutingNode(workflow, node, items, null, additionalData, 'manual');
      const decrypted = { id: '1', name: 'WAHA account', type: credentialType.name, data: credentials };
      const [output] = await routing.runNode(
        { main: [items] },
        0,
        action,
        executeData,
        { getExecuteFunctions: () => ({ getCredentials: async () => credentials }), getExecuteSingleFunctions: singleFunctions },
        decrypted,
      );
      return (output ?? []).map((item) => item.json);
    },

    async trigger(body) {
      const functions = {
        getBodyData: () => body,
        getRequestObject: () => ({ body }),
        helpers: { returnJsonArray: (data: Json | Json[]) => (Array.isArray(data) ? data : [data]).map((json) => ({ json })) },
      };
      const answer = await trigger.webhook!.call(functions);
      return { outputs: trigger.description.outputNames, data: answer.workflowData };
    },
  };
}

interface Expression {
  getParameterValue(value: unknown, ...rest: unknown[]): unknown;
}

function lookup(parameters: Json, path: string): unknown {
  return path
    .split('.')
    .reduce<unknown>((value, key) => (value !== null && typeof value === 'object' ? (value as Json)[key] : undefined), parameters);
}

/** n8n-core's httpRequest as RoutingNode uses it (returnFullResponse): the parsed body; a 4xx or 5xx throws. */
async function send(options: RequestOptions): Promise<{ body: unknown; statusCode: number; headers: Record<string, string> }> {
  const url = new URL((options.baseURL ?? '') + options.url);
  for (const [name, value] of Object.entries(options.qs ?? {})) {
    if (value === undefined || value === null) continue;
    url.searchParams.append(
      name,
      typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value),
    );
  }
  const method = (options.method ?? 'GET').toUpperCase();
  // Like n8n-core's removeEmptyBody: a GET, HEAD or OPTIONS carries no body; other methods send theirs, `{}` included.
  const withBody = !['GET', 'HEAD', 'OPTIONS'].includes(method) && options.body !== undefined;
  const response = await fetch(url, {
    method,
    headers: options.headers ?? {},
    ...(withBody ? { body: JSON.stringify(options.body) } : {}),
  });
  const text = await response.text();
  const body: unknown = (response.headers.get('content-type') ?? '').includes('json') && text !== '' ? JSON.parse(text) : text;
  if (response.status >= 400) throw new Error(`${method} ${url.pathname}${url.search} answered ${response.status}: ${text}`);
  return { body, statusCode: response.status, headers: Object.fromEntries(response.headers) };
}
