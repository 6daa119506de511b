import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as protocol from '../src/index.js';
import { CheckNumberRequest, PhoneNumber } from '../src/index.js';

/** What zod calls a check, read from its definition (zod 4 keeps them in `def.checks`, in order). */
interface CheckDef {
  check: string;
  format?: string;
  abort?: boolean;
}

/** Every string schema reachable from the protocol's exports, by the path that reaches it first. */
function stringSchemas(): Map<string, CheckDef[]> {
  const found = new Map<string, CheckDef[]>();
  const seen = new Set<unknown>();
  const visit = (value: unknown, path: string): void => {
    if (!value || typeof value !== 'object' || seen.has(value) || value instanceof RegExp) return;
    seen.add(value);
    if (Array.isArray(value)) return value.forEach((item, index) => visit(item, `${path}[${index}]`));
    if (!(value instanceof z.ZodType)) {
      for (const [key, member] of Object.entries(value)) visit(member, `${path}.${key}`);
      return;
    }
    const def = value._zod.def as unknown as Record<string, unknown> & { type: string; checks?: { _zod: { def: CheckDef } }[] };
    if (def.type === 'string')
      found.set(
        path,
        (def.checks ?? []).map((check) => check._zod.def),
      );
    if (def.type === 'lazy') visit((def.getter as () => unknown)(), `${path}()`);
    for (const [key, member] of Object.entries(def)) if (key !== 'checks') visit(member, `${path}.${key}`);
  };
  for (const [name, value] of Object.entries(protocol)) visit(value, name);
  return found;
}

describe('length bounds stop validation before a pattern runs (issue 26)', () => {
  it('in every string schema with a length bound and a pattern, the bound comes first and aborts', () => {
    const schemas = stringSchemas();
    const bounded = [...schemas].filter(
      ([, checks]) => checks.some((check) => check.check === 'max_length') && checks.some((check) => check.format === 'regex'),
    );
    expect(bounded.length).toBeGreaterThan(10);
    const late = bounded
      .filter(([, checks]) => {
        const bound = checks.findIndex((check) => check.check === 'max_length');
        return !checks[bound]!.abort || checks.findIndex((check) => check.format === 'regex') < bound;
      })
      .map(([path]) => path);
    expect(late).toEqual([]);
  });

  it('a phone number of 64k separators is refused for its length alone', () => {
    const result = CheckNumberRequest.safeParse({ phone: ' ('.repeat(32 * 1024) });
    expect(result.success).toBe(false);
    expect(result.error!.issues).toEqual([expect.objectContaining({ code: 'too_big', maximum: 64, path: ['phone'] })]);
  });

  it('phone numbers as clients write them still become their digits', () => {
    expect(PhoneNumber.parse('+1 (213) 321-3213')).toBe('12133213213');
    expect(PhoneNumber.parse(' 12133213213@c.us ')).toBe('12133213213');
    expect(PhoneNumber.parse('(+49) 30.1234.5678')).toBe('493012345678');
    for (const bad of ['12345', '1'.repeat(16), '+', '1213213213@g.us', '++1213213213']) {
      expect(PhoneNumber.safeParse(bad).success, bad).toBe(false);
    }
  });
});
