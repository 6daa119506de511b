import { describe, expect, it } from 'vitest';
import { DelayQueue } from '../src/engines/sandbox/delay-queue.js';

describe('DelayQueue (sandbox acknowledgements)', () => {
  it('runs every task after the delay, in the order pushed', async () => {
    const queue = new DelayQueue(20);
    const ran: number[] = [];
    const started = Date.now();
    for (let i = 0; i < 5; i++) queue.push(() => ran.push(i));
    await new Promise((resolve) => setTimeout(resolve, 5));
    queue.push(() => ran.push(5));
    expect(ran).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(ran).toEqual([0, 1, 2, 3, 4, 5]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(20);
  });

  it('runAll runs every waiting task at once, in order, and nothing of them later', async () => {
    const queue = new DelayQueue(60_000);
    const ran: number[] = [];
    for (let i = 0; i < 3; i++) queue.push(() => ran.push(i));
    queue.runAll();
    expect(ran).toEqual([0, 1, 2]);
    queue.push(() => ran.push(3));
    queue.runAll();
    queue.runAll();
    expect(ran).toEqual([0, 1, 2, 3]);
  });

  it('runs nothing after clear', async () => {
    const queue = new DelayQueue(10);
    let ran = false;
    queue.push(() => {
      ran = true;
    });
    queue.clear();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(ran).toBe(false);
  });
});
