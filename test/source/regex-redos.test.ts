import { fileURLToPath } from 'node:url';
import { check, type Diagnostics } from 'recheck';
import { describe, expect, it } from 'vitest';
import { sourceRegexes } from './source-regexes.js';

// recheck's pure JavaScript backend: no native binary or JVM agent to fetch, the same on every machine.
process.env.RECHECK_BACKEND = 'pure';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
/** Where input from clients, engines and pods is matched. */
const SOURCES = ['protocol/src', 'gateway/src', 'engine-pod/src'];

/**
 * Bounded by work, not by time: without time limits recheck's result does not depend on how
 * loaded the machine is (its fuzzing is seeded, its automata exact).
 */
const PARAMS = { timeout: null, attackTimeout: null, incubationTimeout: null, seedingTimeout: null } as const;

/** What recheck says of a pattern that is not safe: its complexity and an attack string, or why it could not tell. */
function verdict(diagnostics: Diagnostics): string {
  if (diagnostics.status === 'vulnerable') return `${diagnostics.complexity.summary}, attack: ${diagnostics.attack.pattern}`;
  if (diagnostics.status === 'unknown') return `could not be checked: ${diagnostics.error.kind}`;
  return 'safe';
}

describe('regular expressions of protocol/, gateway/ and engine-pod/ (issue 26)', () => {
  const { regexes, uncheckable } = sourceRegexes(repoRoot, SOURCES);

  it('the checker finds the sources’ patterns, and flags a pattern that backtracks', async () => {
    const files = new Set(regexes.map((regex) => regex.where.replace(/:\d+$/, '')));
    for (const file of ['protocol/src/account.ts', 'gateway/src/config.ts', 'engine-pod/src/pod/config.ts']) expect(files.has(file)).toBe(true);
    // `new RegExp(`^(${CHAT_ID_FORMS})$`)`, its constant read from another file.
    expect(regexes.map((regex) => regex.source)).toContain(String.raw`^(\d{1,20}@c\.us|[0-9A-Za-z-]{1,64}@g\.us|\d{1,24}@lid)$`);
    expect((await check(String.raw`\/+$`, '', PARAMS)).status).toBe('vulnerable');
  });

  it('every RegExp(...) is built from constants, so that it can be checked', () => {
    expect(uncheckable).toEqual([]);
  });

  it('no pattern takes more than linear time on any input', { timeout: 600_000 }, async () => {
    const verdicts = new Map<string, Promise<string>>();
    const unsafe: string[] = [];
    for (const { where, source, flags } of regexes) {
      const key = `/${source}/${flags}`;
      if (!verdicts.has(key)) verdicts.set(key, check(source, flags, PARAMS).then(verdict));
      const said = await verdicts.get(key)!;
      if (said !== 'safe') unsafe.push(`${where} ${key}: ${said}`);
    }
    expect(unsafe).toEqual([]);
  });
});
