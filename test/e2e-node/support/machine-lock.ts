// One real-node cluster per machine: its bridge, routes, nftables tables, cgroup root and run dir
// are fixed, and a starting run cleans up whatever another left, killing a cluster that is still
// in use. This global setup runs before global-setup.ts (vitest.config.ts) and waits until no
// other run holds the machine; its teardown, which vitest runs after the cluster's, lets the next
// one go. The lock is a directory (mkdir is atomic) holding the owner's pid and checkout: a lock
// whose process is gone is taken over.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const lockDir = process.env.SWITCHBOARD_NODE_LOCK ?? '/tmp/switchboard-node.lock';
const WAIT_MS = 45 * 60_000;

interface Owner {
  readonly pid: number;
  readonly cwd: string;
  readonly since: string;
}

function owner(): Owner | undefined {
  try {
    return JSON.parse(readFileSync(join(lockDir, 'owner.json'), 'utf8')) as Owner;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export default async function setup(): Promise<() => void> {
  const started = Date.now();
  let told = false;
  for (;;) {
    try {
      mkdirSync(lockDir);
      writeFileSync(join(lockDir, 'owner.json'), JSON.stringify({ pid: process.pid, cwd: process.cwd(), since: new Date().toISOString() }));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = owner();
    // Gone, or a lock made a moment ago whose owner file is not written yet (then wait a round).
    if (holder && !alive(holder.pid)) {
      rmSync(lockDir, { recursive: true, force: true });
      continue;
    }
    if (!told && holder) {
      console.error(`e2e-node: waiting for the real-node cluster of pid ${holder.pid} (${holder.cwd}, since ${holder.since}) to finish`);
      told = true;
    }
    if (Date.now() - started > WAIT_MS)
      throw new Error(`e2e-node: ${lockDir} still held after ${WAIT_MS / 60_000} minutes by ${JSON.stringify(holder)}`);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
  return () => {
    if (owner()?.pid === process.pid) rmSync(lockDir, { recursive: true, force: true });
  };
}
