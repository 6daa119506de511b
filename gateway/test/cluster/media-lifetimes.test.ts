import type { MessagingSession } from '@switchboard/kube';
import { waitFor } from '@switchboard/testkit';
import { describe, expect, it } from 'vitest';
import { keepMediaLifetimes } from '../../src/cluster/media-lifetimes.js';

/** A session cache that holds what the test puts in it and tells its listeners. */
function fakeCache() {
  let resources: MessagingSession[] = [];
  const listeners = new Set<(resourceName: string) => void>();
  return {
    list: () => resources,
    subscribe(listener: (resourceName: string) => void) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    set(next: MessagingSession[]) {
      resources = next;
      for (const listener of listeners) listener('any');
    },
  };
}

const resource = (name: string, uid: string, deleting = false) =>
  ({
    metadata: { name, uid, ...(deleting ? { deletionTimestamp: new Date().toISOString() } : {}) },
    spec: { engine: 'SANDBOX' },
  }) as unknown as MessagingSession;

const silent = { warn() {} };

describe('keepMediaLifetimes: every session the gateway sees gets its media bucket at the lifetime', () => {
  it('once per resource, again for a new resource of the name, never for one being deleted', () => {
    const cache = fakeCache();
    cache.set([resource('a', 'uid-a')]);
    const kept: string[] = [];
    const stop = keepMediaLifetimes(cache, async (session) => void kept.push(session), silent);
    expect(kept).toEqual(['a']);
    cache.set([resource('a', 'uid-a'), resource('b', 'uid-b')]);
    expect(kept).toEqual(['a', 'b']);
    // Being deleted: its buckets are going, and must not be made again.
    cache.set([resource('a', 'uid-a'), resource('b', 'uid-b'), resource('c', 'uid-c', true)]);
    expect(kept).toEqual(['a', 'b']);
    // Deleted and made again under the same name: a new bucket to bring to the lifetime.
    cache.set([resource('a', 'uid-a2'), resource('b', 'uid-b')]);
    expect(kept).toEqual(['a', 'b', 'a']);
    stop();
    cache.set([resource('d', 'uid-d')]);
    expect(kept).toEqual(['a', 'b', 'a']);
  });

  it('tries a session again at the next change after a failure', async () => {
    const cache = fakeCache();
    cache.set([resource('a', 'uid-a')]);
    let calls = 0;
    const warnings: unknown[] = [];
    keepMediaLifetimes(
      cache,
      async () => {
        calls++;
        if (calls === 1) throw new Error('JetStream not available');
      },
      { warn: (obj) => void warnings.push(obj) },
    );
    await waitFor(() => warnings.length === 1, 'the failure logged');
    cache.set([resource('a', 'uid-a')]);
    expect(calls).toBe(2);
  });
});
