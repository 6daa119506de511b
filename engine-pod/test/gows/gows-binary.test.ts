import { describe, expect, it } from 'vitest';
import { EngineProcess } from '../../src/engines/gows/engine-process.js';
import { gowsCatalogMethods } from '../../src/engines/gows/gows-engine.js';
import { gowsBinaryProblem, gowsOptionsFromEnv } from '../../src/engines/gows/options.js';

const silent = { info() {}, warn() {}, error() {} };

/** The binary `make build` puts in engines/gows/bin (SWITCHBOARD_GOWS_BIN overrides), as the gateway runs it. */
const options = gowsOptionsFromEnv(process.env);

describe('the built switchboard-gows and the engine catalog', () => {
  it('is there to run: make build builds it', () => {
    expect(gowsBinaryProblem(options)).toBeNull();
  });

  it('lists in capabilities exactly the optional methods the catalog gives GOWS, so neither promises what the other lacks', async () => {
    const child = new EngineProcess(
      { command: options.command, env: { SWITCHBOARD_SESSION: 'catalog' }, log: silent, logFields: {}, onExit() {} },
      {},
    );
    const { methods } = (await child.request('capabilities', {})) as { methods: string[] };
    await child.close(5_000);
    expect([...methods].sort()).toEqual(gowsCatalogMethods().sort());
  });
});
