/**
 * JSON Schema keywords for rules that zod checks in a refinement, which its JSON Schema output
 * cannot see. zod copies `.meta()` keys into the generated schema, so a schema that refines adds
 * the same rule here and the OpenAPI document states it too; generated clients and fuzzers then
 * agree with the server. Rules JSON Schema cannot state go into `description` instead.
 */

/** Exactly one of `keys` is present (not two, not none). */
export function exactlyOneOf(...keys: string[]): { oneOf: object[] } {
  return { oneOf: keys.map((key) => ({ required: [key] })) };
}

/** Each of `keys` is present and not null. */
export function presentNotNull(...keys: string[]): object {
  return { required: keys, properties: Object.fromEntries(keys.map((key) => [key, { not: { type: 'null' } }])) };
}

/** When `key` is `value`, `then` applies. */
export function when(key: string, value: unknown, then: object): object {
  return { if: { required: [key], properties: { [key]: { const: value } } }, then };
}

/** No item twice. */
export const UNIQUE_ITEMS = { uniqueItems: true } as const;
