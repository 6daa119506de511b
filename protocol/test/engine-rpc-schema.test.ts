import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EVENT_NAMES } from '../src/index.js';
import { engineRpcJsonSchema } from '../src/engine-rpc-schema.js';

const FILE = new URL('../../engines/gows/engine-rpc.schema.json', import.meta.url);

describe('the GOWS engine RPC schema (engines/gows/engine-rpc.schema.json), generated from the protocol', () => {
  it('is up to date: pnpm exec tsc -b protocol && pnpm --filter @switchboard/protocol gen:gows-schema writes it again', () => {
    expect(readFileSync(FILE, 'utf8'), 'engines/gows/engine-rpc.schema.json is stale').toBe(`${JSON.stringify(engineRpcJsonSchema(), null, 2)}\n`);
  });

  it('names what the Go side validates: the RPC params, results and notifications, and every event payload, session.status too (the Go engine pod checks the envelopes it makes itself)', () => {
    const defs = engineRpcJsonSchema().$defs as Record<string, unknown>;
    for (const name of ['StartParams', 'EngineSettings', 'RequestCodeRequest', 'SendTextArgs', 'MessageRecord', 'SessionStatus', 'MeInfo']) {
      expect(defs, name).toHaveProperty([name]);
    }
    for (const event of EVENT_NAMES) expect(Object.hasOwn(defs, `event.${event}`), event).toBe(true);
  });
});
