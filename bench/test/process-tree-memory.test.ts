// A tree's memory "alone": each resident page frame once, however many of its processes map it.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { treeMemory, treeResidentAlone } from '../src/process-tree-memory.js';

const rssOf = (pid: number) => Number(/^Rss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))![1]) * 1024;

describe('treeResidentAlone', () => {
  let tree: ChildProcess | undefined;
  afterEach(() => {
    tree?.kill('SIGKILL');
  });

  it('counts the pages two processes of the tree share once: less than the sum of their RSS, at least the larger one', async () => {
    // Two idle node processes under one shell: they share node's binary and libraries.
    const idle = `${JSON.stringify(process.execPath)} -e "setTimeout(() => {}, 60000); console.log(process.pid)"`;
    tree = spawn('bash', ['-c', `${idle} & ${idle} & wait`], { stdio: ['ignore', 'pipe', 'ignore'] });
    const pids: number[] = [];
    await new Promise<void>((resolve) =>
      tree!.stdout!.on('data', (chunk: Buffer) => {
        pids.push(...chunk.toString().split('\n').filter(Boolean).map(Number));
        if (pids.length === 2) resolve();
      }),
    );
    const alone = treeResidentAlone(tree.pid!);
    if (alone === null) {
      // Page frames are shown to root only.
      expect(process.getuid?.()).not.toBe(0);
      return;
    }
    const [first, second] = pids.map(rssOf) as [number, number];
    expect(alone).toBeGreaterThanOrEqual(Math.max(first, second) * 0.9);
    expect(alone).toBeLessThan(treeMemory(tree.pid!).rss);
    expect(alone).toBeLessThan((first + second) * 0.9);
  });
});
