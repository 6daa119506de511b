import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ENGINE_DIR, goBinary } from './driver.js';

describe('the Go side of GOWS (engines/gows)', () => {
  it('passes go vet and its own unit tests (the store over the auth state, the engine RPC)', async () => {
    const env = { ...process.env, CGO_ENABLED: '0', GOFLAGS: '-mod=readonly -buildvcs=false' };
    const run = (args: string[]) => promisify(execFile)(goBinary(), args, { cwd: ENGINE_DIR, env });
    await run(['vet', './...']);
    const { stdout } = await run(['test', '-count=1', './...']);
    expect(stdout).toMatch(/^ok\s/m);
  }, 300_000);
});
