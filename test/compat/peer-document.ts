import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

/**
 * The peer product's published OpenAPI document (shared/reference/peer-openapi.json, beside the
 * repository: CI lays shared/ next to its clone; a worktree finds it further up). It is reference
 * data, read where it lies and never copied into the tree.
 */
type Schema = { [key: string]: unknown };
interface Parameter {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header';
  readonly required?: boolean;
  readonly schema?: Schema;
}
interface Operation {
  readonly operationId?: string;
  readonly tags?: string[];
  readonly parameters?: Parameter[];
  readonly requestBody?: { content?: Record<string, { schema?: Schema; example?: unknown; examples?: Record<string, { value: unknown }> }> };
  readonly responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}
interface PeerDocument {
  readonly paths: Record<string, Record<string, Operation>>;
  readonly components: { schemas: Record<string, Schema> };
}

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export function peerDocumentPath(): string {
  for (let dir = dirname(ROOT); ; dir = dirname(dir)) {
    const candidate = join(dir, 'shared', 'reference', 'peer-openapi.json');
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir)
      throw new Error(`no shared/reference/peer-openapi.json above ${ROOT}: the compatibility test reads the peer's document there`);
  }
}

/** One operation of the peer's document, as `METHOD /path` with the request it documents. */
export interface PeerOperation {
  /** `GET /api/{session}/chats`: the key of the differences list. */
  readonly key: string;
  readonly method: string;
  readonly path: string;
  readonly tag: string;
  /** The documented success statuses (its 2xx answers). */
  readonly success: readonly number[];
  readonly parameters: readonly Parameter[];
  readonly body: unknown;
  /** A JSON schema of the success answer, when the document gives one. */
  readonly validate: ValidateFunction | null;
}

const METHODS = ['get', 'post', 'put', 'delete', 'patch'];

export function loadPeerOperations(): PeerOperation[] {
  const document = JSON.parse(readFileSync(peerDocumentPath(), 'utf8')) as PeerDocument;
  const schemas = document.components.schemas;
  // The document mixes OpenAPI 3.0 habits into 3.1 (`nullable`, `required: true` on a property):
  // read leniently, the way the peer's own clients do, and check what the schemas say of the data.
  const ajv = new Ajv2020({ strict: false, validateSchema: false, allErrors: true, discriminator: false });
  ajv.addKeyword({ keyword: 'example' });
  ajv.addSchema({ $id: 'peer', components: { schemas: sanitize(schemas) } });
  const operations: PeerOperation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.includes(method)) continue;
      const responses = operation.responses ?? {};
      const success = Object.keys(responses)
        .map(Number)
        .filter((status) => status >= 200 && status < 300);
      const schema = success.map((status) => responses[String(status)]?.content?.['application/json']?.schema).find((s) => s !== undefined);
      operations.push({
        key: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        tag: (operation.tags?.[0] ?? '').replace(/^[^\p{L}]+/u, ''),
        success,
        parameters: operation.parameters ?? [],
        body: requestBody(operation, schemas),
        validate: schema ? ajv.compile(rebase(sanitize(schema) as Schema)) : null,
      });
    }
  }
  return operations;
}

/** `#/components/...` refs point into the schema registered as `peer`. */
function rebase(schema: Schema): Schema {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"peer#/components/')) as Schema;
}

/** Drops OpenAPI 3.0's `nullable` by widening the type, and `required: true` on properties. */
function sanitize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sanitize);
  if (value === null || typeof value !== 'object') return value;
  const out: Schema = {};
  for (const [key, member] of Object.entries(value)) {
    if (key === 'required' && typeof member === 'boolean') continue;
    out[key] = sanitize(member);
  }
  if (out.nullable === true) {
    delete out.nullable;
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    else if (out.enum === undefined) return { anyOf: [out, { type: 'null' }] };
  }
  return out;
}

function requestBody(operation: Operation, schemas: Record<string, Schema>): unknown {
  const content = operation.requestBody?.content?.['application/json'];
  if (!content) return undefined;
  if (content.example !== undefined) return content.example;
  const first = content.examples && Object.values(content.examples)[0];
  if (first) return first.value;
  return content.schema ? exampleOf(content.schema, schemas) : undefined;
}

/**
 * A value the schema documents: its example or default, else one made from its type (required
 * members only, as a client that fills in what it must).
 */
export function exampleOf(schema: Schema, schemas: Record<string, Schema>, depth = 0): unknown {
  if (depth > 8) return undefined;
  const ref = schema.$ref as string | undefined;
  if (ref) return exampleOf(schemas[ref.split('/').pop() ?? ''] ?? {}, schemas, depth + 1);
  if (schema.example !== undefined && schema.example !== null) return schema.example;
  if (schema.default !== undefined && schema.default !== null) return schema.default;
  for (const combinator of ['allOf', 'oneOf', 'anyOf']) {
    const options = schema[combinator] as Schema[] | undefined;
    if (options?.[0]) {
      if (combinator !== 'allOf' || options.length === 1) return exampleOf(options[0], schemas, depth + 1);
      return Object.assign({}, ...options.map((option) => exampleOf(option, schemas, depth + 1) as object));
    }
  }
  if (Array.isArray(schema.enum)) return schema.enum[0];
  switch (schema.type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
      const out: Record<string, unknown> = {};
      for (const name of required) {
        const property = properties[name];
        if (property) out[name] = exampleOf(property, schemas, depth + 1);
      }
      return out;
    }
    case 'array':
      return [exampleOf((schema.items ?? {}) as Schema, schemas, depth + 1)];
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return false;
    default:
      return schema.properties ? exampleOf({ ...schema, type: 'object' }, schemas, depth) : {};
  }
}
