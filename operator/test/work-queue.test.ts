import { backoffDelay } from '@switchboard/kube';
import { describe, expect, it } from 'vitest';
import { WorkQueue } from '../src/work-queue.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('WorkQueue', () => {
  it('queues a key once however often it is added, in first-added order', async () => {
    const queue = new WorkQueue();
    for (const key of ['a', 'b', 'a', 'c', 'b']) queue.add(key);
    expect(queue.length).toBe(3);
    expect([await queue.get(), await queue.get(), await queue.get()]).toEqual(['a', 'b', 'c']);
  });

  it('never hands a key to two workers at once; one added while processing comes back after done', async () => {
    const queue = new WorkQueue();
    queue.add('a');
    expect(await queue.get()).toBe('a');
    queue.add('a');
    queue.add('a');
    let second: string | undefined = 'pending';
    void queue.get().then((key) => (second = key));
    await tick();
    expect(second).toBe('pending');
    queue.done('a');
    await tick();
    expect(second).toBe('a');
    queue.done('a');
    expect(queue.length).toBe(0);
  });

  it('hands a key to a worker that was already waiting', async () => {
    const queue = new WorkQueue();
    const next = queue.get();
    queue.add('a');
    expect(await next).toBe('a');
  });

  it('requeues failures after a per-key backoff that doubles, and forget resets it', async () => {
    const queue = new WorkQueue({ baseMs: 20, maxMs: 1_000 });
    queue.addRateLimited('a');
    queue.addRateLimited('a');
    expect(queue.numRequeues('a')).toBe(2);
    expect(queue.length).toBe(0);
    const started = Date.now();
    expect(await queue.get()).toBe('a');
    // The second failure's 40 ms replaced nothing: the earlier 20 ms add stands.
    expect(Date.now() - started).toBeGreaterThanOrEqual(15);
    queue.forget('a');
    expect(queue.numRequeues('a')).toBe(0);
    expect(queue.numRequeues('b')).toBe(0);
  });

  it('backoff starts at the base, doubles per failure, and stops at the cap', () => {
    const options = { baseMs: 100, maxMs: 60_000 };
    expect([1, 2, 3, 4].map((n) => backoffDelay(n, options))).toEqual([100, 200, 400, 800]);
    expect(backoffDelay(11, options)).toBe(60_000);
    expect(backoffDelay(10_000, options)).toBe(60_000);
  });

  it('addAfter adds the key later; the earlier of two pending adds wins', async () => {
    const queue = new WorkQueue();
    queue.addAfter('a', 200);
    queue.addAfter('a', 20);
    expect(queue.length).toBe(0);
    await sleep(60);
    expect(queue.length).toBe(1);
    expect(await queue.get()).toBe('a');
    queue.done('a');
    await sleep(200);
    expect(queue.length).toBe(0);
  });

  it('shutDown releases waiting workers with undefined and ignores later adds', async () => {
    const queue = new WorkQueue();
    const waiting = queue.get();
    queue.addAfter('late', 10);
    queue.shutDown();
    expect(await waiting).toBeUndefined();
    queue.add('a');
    await sleep(30);
    expect(queue.length).toBe(0);
    expect(await queue.get()).toBeUndefined();
    expect(queue.isShuttingDown).toBe(true);
  });
});
