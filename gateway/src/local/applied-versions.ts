import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BuiltEngine } from '@switchboard/protocol';

/** The file, in the data dir: the client version each socket engine's sessions last ran on. */
const FILE = 'engine-versions.json';

/**
 * What each socket engine's running sessions last ran on (its SWITCHBOARD_<ENGINE>_CLIENT_VERSION,
 * null for the library's own): local-rollout.ts compares it with the variable at start, and it is
 * written only once every session has passed on the new one, so a halted change is tried again at
 * the next start. A file of its own beside the databases: a few bytes, written rarely.
 */
export class AppliedVersions {
  private readonly path: string;

  constructor(dataDir: string) {
    this.path = join(dataDir, FILE);
  }

  /** What the engine's sessions ran on; undefined when never recorded (a first start, or an earlier build). */
  get(engine: BuiltEngine): string | null | undefined {
    return this.read()[engine];
  }

  set(engine: BuiltEngine, version: string | null): void {
    const next = { ...this.read(), [engine]: version };
    // Through a rename: a crash mid-write leaves the last good file.
    writeFileSync(`${this.path}.tmp`, `${JSON.stringify(next)}\n`, { mode: 0o600 });
    renameSync(`${this.path}.tmp`, this.path);
  }

  private read(): Partial<Record<BuiltEngine, string | null>> {
    try {
      return JSON.parse(readFileSync(this.path, 'utf8')) as Partial<Record<BuiltEngine, string | null>>;
    } catch {
      return {};
    }
  }
}
