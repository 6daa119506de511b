import { z } from 'zod';

type Schema = Record<string, unknown>;

/**
 * Turns a zod schema into the structural OpenAPI v3 schema a CRD needs. Kubernetes accepts no
 * `$ref`, no `anyOf` of differently typed branches, no `const` and no `propertyNames`, so refs
 * are inlined, `x | null` becomes `nullable`, a union of string constants becomes one `enum`.
 * Kubernetes' own keywords (`x-kubernetes-list-type`, `x-kubernetes-validations`, ...) are
 * given to a zod schema with `.meta()` and carried through as they are.
 */
export function structuralSchema(schema: z.ZodType): Schema {
  const json = z.toJSONSchema(schema, { io: 'input', target: 'openapi-3.0', unrepresentable: 'any' }) as Schema;
  const defs = (json.$defs ?? json.definitions ?? {}) as Record<string, Schema>;
  return convert(json, defs);
}

function convert(node: Schema, defs: Record<string, Schema>): Schema {
  if (typeof node.$ref === 'string') {
    const name = node.$ref.split('/').at(-1)!;
    const { $ref: _ref, ...rest } = node;
    return convert({ ...defs[name], ...rest }, defs);
  }
  if (Array.isArray(node.allOf)) {
    // openapi-3.0 output wraps a `$ref` that has siblings (a default) in a one-element allOf.
    const { allOf, ...rest } = node;
    return convert(Object.assign({}, ...(allOf as Schema[]).map((part) => convert(part, defs)), rest) as Schema, defs);
  }
  if (Array.isArray(node.anyOf)) return convertUnion(node, defs);
  const out: Schema = {};
  for (const [key, value] of Object.entries(node)) {
    if (DROPPED.has(key)) continue;
    if (key === 'const') out.enum = [value];
    else if (key === 'properties') out.properties = mapValues(value as Record<string, Schema>, (v) => convert(v, defs));
    else if (key === 'items' || (key === 'additionalProperties' && typeof value === 'object')) out[key] = convert(value as Schema, defs);
    else if (key === 'additionalProperties' && value === false) continue;
    // zod bounds every integer to the safe range; in a CRD that is noise, not a rule.
    else if ((key === 'minimum' || key === 'maximum') && Math.abs(value as number) === Number.MAX_SAFE_INTEGER) continue;
    // zod spells its date-time check out as a long pattern too; the API server checks the format.
    else if (key === 'pattern' && node.format === 'date-time') continue;
    else out[key] = value;
  }
  return out;
}

function convertUnion(node: Schema, defs: Record<string, Schema>): Schema {
  const { anyOf, ...rest } = node;
  const branches = (anyOf as Schema[]).map((branch) => convert(branch, defs));
  const nonNull = branches.filter((b) => !(b.type === 'null' || (b.nullable === true && Object.keys(b).length === 1)));
  const nullable = nonNull.length < branches.length || node.nullable === true;
  let merged: Schema;
  if (nonNull.every((b) => b.type === 'string' && Array.isArray(b.enum))) {
    merged = { type: 'string', enum: nonNull.flatMap((b) => b.enum as unknown[]) };
  } else if (nonNull.length === 1) {
    merged = nonNull[0]!;
  } else {
    throw new Error(`cannot express a union of ${nonNull.map((b) => b.type).join(', ')} structurally`);
  }
  const out = { ...merged, ...convert(rest, defs) };
  if (nullable) out.nullable = true;
  return out;
}

const DROPPED = new Set(['$schema', '$defs', 'definitions', 'id', 'examples', 'propertyNames', 'nullable_placeholder']);

function mapValues<T, U>(record: Record<string, T>, fn: (value: T) => U): Record<string, U> {
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, fn(v)]));
}
