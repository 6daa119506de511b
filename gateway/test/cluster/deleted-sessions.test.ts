import type { MessagingSession } from '@switchboard/kube';
import { describe, expect, it } from 'vitest';
import { onDeletedSessions } from '../../src/cluster/deleted-sessions.js';

const resource = (name: string, uid: string): MessagingSession =>
  ({ metadata: { name, uid }, spec: { engine: 'SANDBOX', desiredState: 'Stopped' } }) as MessagingSession;

/** The cache as onDeletedSessions reads it: a list, and a listener called after each change. */
function fakeCache(initial: MessagingSession[]) {
  let resources = initial;
  const listeners = new Set<(resourceName: string) => void>();
  return {
    list: () => resources,
    subscribe: (listener: (resourceName: string) => void) => {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    set(next: MessagingSession[]) {
      resources = next;
      for (const listener of listeners) listener('a');
    },
  };
}

describe('onDeletedSessions', () => {
  it('tells of a session that left the cache, with the resource as last seen', () => {
    const a = resource('a', 'uid-a');
    const cache = fakeCache([a, resource('b', 'uid-b')]);
    const deleted: [string, string | undefined][] = [];
    onDeletedSessions(cache, (session, last) => deleted.push([session, last.metadata?.uid]));
    cache.set([resource('b', 'uid-b')]);
    expect(deleted).toEqual([['a', 'uid-a']]);
  });

  it('tells of a session deleted and made again between two looks: a new uid is a new session', () => {
    const cache = fakeCache([resource('a', 'uid-1')]);
    const deleted: [string, string | undefined][] = [];
    onDeletedSessions(cache, (session, last) => deleted.push([session, last.metadata?.uid]));
    cache.set([resource('a', 'uid-2')]);
    cache.set([resource('a', 'uid-2')]);
    expect(deleted).toEqual([['a', 'uid-1']]);
  });
});
