import type { Access } from '../auth/access.js';

/**
 * The MCP tools, made from the gateway's own OpenAPI document (which fastify builds from the
 * routes' zod schemas): one tool per operation, so a route added to the API is a tool without a
 * line here, and its input schema is the schema the route validates with.
 */

type Schema = { [key: string]: unknown };
interface Parameter {
  readonly name: string;
  readonly in: string;
  readonly required?: boolean;
  readonly description?: string;
  readonly schema?: Schema;
}
interface Operation {
  readonly summary?: string;
  readonly description?: string;
  readonly deprecated?: boolean;
  readonly parameters?: Parameter[];
  readonly requestBody?: { readonly required?: boolean; readonly content?: Record<string, { schema?: Schema }> };
  readonly 'x-access'?: Access;
}
export interface OpenApiDocument {
  readonly paths?: Record<string, Record<string, Operation>>;
  readonly components?: { readonly schemas?: Record<string, Schema> };
}

export interface McpTool {
  /** `sendText` for `POST /api/sendText`; else the method and the path: `getSessionsBySession`. */
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: { type: 'object'; properties: Record<string, Schema>; required: string[]; $defs?: Record<string, Schema> };
  readonly method: string;
  readonly path: string;
  /** What a key needs here (the route's `config.access`); null: any caller. */
  readonly access: Access | null;
  readonly pathParams: readonly string[];
  readonly queryParams: readonly string[];
  /** Where the JSON body comes from: the arguments other than the parameters, the `body` argument, or none. */
  readonly body: 'flat' | 'nested' | 'none';
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
/** Not API operations: the docs themselves, and this endpoint. */
const SKIPPED = [/^\/docs(\/|$)/, /^\/mcp$/];
const REF = '#/components/schemas/';

export function toolsOf(document: OpenApiDocument): McpTool[] {
  const components = document.components?.schemas ?? {};
  const tools: McpTool[] = [];
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    if (SKIPPED.some((pattern) => pattern.test(path))) continue;
    for (const [method, operation] of Object.entries(item)) {
      // A deprecated operation has a current one that does the same: one tool for it is enough.
      if (!METHODS.includes(method) || operation.deprecated) continue;
      tools.push(toolOf(method.toUpperCase(), path, operation, components));
    }
  }
  return tools;
}

function toolOf(method: string, path: string, operation: Operation, components: Record<string, Schema>): McpTool {
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  const pathParams: string[] = [];
  const queryParams: string[] = [];
  for (const parameter of operation.parameters ?? []) {
    if (parameter.in !== 'path' && parameter.in !== 'query') continue;
    (parameter.in === 'path' ? pathParams : queryParams).push(parameter.name);
    properties[parameter.name] = { ...(parameter.schema ?? {}), ...(parameter.description ? { description: parameter.description } : {}) };
    if (parameter.required || parameter.in === 'path') required.push(parameter.name);
  }
  let body: McpTool['body'] = 'none';
  const bodySchema = operation.requestBody?.content?.['application/json']?.schema;
  if (bodySchema) {
    const resolved = resolve(bodySchema, components);
    const fields = resolved.type === 'object' && isRecord(resolved.properties) ? (resolved.properties as Record<string, Schema>) : null;
    if (fields && !Object.keys(fields).some((key) => key in properties)) {
      // The body's fields are the tool's arguments, beside the parameters: `sendText {session, chatId, text}`.
      body = 'flat';
      Object.assign(properties, fields);
      if (Array.isArray(resolved.required)) required.push(...(resolved.required as string[]));
    } else {
      body = 'nested';
      properties.body = bodySchema;
      if (operation.requestBody?.required) required.push('body');
    }
  }
  const defs = referenced(properties, components);
  const inputSchema = {
    type: 'object' as const,
    properties: relink(properties) as Record<string, Schema>,
    required,
    ...(Object.keys(defs).length > 0 ? { $defs: relink(defs) as Record<string, Schema> } : {}),
  };
  const summary = operation.summary ?? `${method} ${path}`;
  return {
    name: nameOf(method, path),
    title: summary,
    description: [`${summary}.`, operation.description, `(${method} ${path})`].filter(Boolean).join(' '),
    inputSchema,
    method,
    path,
    access: operation['x-access'] ?? null,
    pathParams,
    queryParams,
    body,
  };
}

/**
 * The tool's name, made from the route so it stays put when other routes come: the API's own
 * verb names where the path is one (`POST /api/sendText` is `sendText`), else the method and
 * the path's segments, parameters as `By<Name>` (`POST /api/sessions/{session}/start` is
 * `postSessionsBySessionStart`, `POST /api/keys` is `postKeys`).
 */
export function nameOf(method: string, path: string): string {
  const segments = path
    .replace(/^\/api(?=\/|$)/, '')
    .split('/')
    .filter(Boolean);
  const [only] = segments;
  if (method === 'POST' && segments.length === 1 && only && /^[a-z]+[A-Z][A-Za-z0-9]*$/.test(only)) return only;
  const words = segments.map((segment) => {
    const param = /^\{(.+)\}$/.exec(segment);
    return param ? `By${capitalized(param[1]!)}` : capitalized(segment);
  });
  return (method.toLowerCase() + words.join('')).slice(0, 64);
}

function capitalized(segment: string): string {
  return segment
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join('');
}

/** Builds the request an operation's tool call stands for. */
export function requestOf(tool: McpTool, args: Record<string, unknown>): { url: string; payload: unknown } {
  let url = tool.path;
  for (const name of tool.pathParams) url = url.replace(`{${name}}`, encodeURIComponent(scalar(args[name])));
  const query = new URLSearchParams();
  for (const name of tool.queryParams) {
    const value = args[name];
    if (value === undefined || value === null) continue;
    for (const each of Array.isArray(value) ? value : [value]) query.append(name, scalar(each));
  }
  const search = query.toString();
  let payload: unknown;
  if (tool.body === 'nested') payload = args.body;
  else if (tool.body === 'flat') {
    const params = new Set([...tool.pathParams, ...tool.queryParams]);
    payload = Object.fromEntries(Object.entries(args).filter(([key]) => !params.has(key)));
  }
  return { url: search ? `${url}?${search}` : url, payload };
}

/** A parameter's text: a string, number or boolean as written, anything else as JSON (which its route then refuses). */
function scalar(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
}

function resolve(schema: Schema, components: Record<string, Schema>): Schema {
  const ref = schema.$ref;
  if (typeof ref === 'string' && ref.startsWith(REF)) return components[ref.slice(REF.length)] ?? schema;
  return schema;
}

/** The component schemas `value` refers to, directly or through each other. */
function referenced(value: unknown, components: Record<string, Schema>): Record<string, Schema> {
  const found: Record<string, Schema> = {};
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!isRecord(node)) return;
    for (const [key, member] of Object.entries(node)) {
      if (key === '$ref' && typeof member === 'string' && member.startsWith(REF)) {
        const name = member.slice(REF.length);
        if (!(name in found) && components[name]) {
          found[name] = components[name];
          visit(components[name]);
        }
      } else visit(member);
    }
  };
  visit(value);
  return found;
}

/** The same schemas with their references pointing into the tool's own `$defs`. */
function relink(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(relink);
  if (!isRecord(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, member]) => [
      key,
      key === '$ref' && typeof member === 'string' && member.startsWith(REF) ? `#/$defs/${member.slice(REF.length)}` : relink(member),
    ]),
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
