import type { MessagingSession } from '@switchboard/kube';
import { describe, expect, it } from 'vitest';
import { inCreationOrder } from '../../src/cluster/messaging-session.js';

const resource = (name: string, creationTimestamp: string | Date | undefined): MessagingSession =>
  ({
    metadata: { name, ...(creationTimestamp ? { creationTimestamp } : {}) },
    spec: { engine: 'SANDBOX', desiredState: 'Running' },
  }) as MessagingSession;

describe('inCreationOrder: the order both modes list sessions in', () => {
  it('oldest first; sessions made in the same second by name, as localeCompare orders them; the input is left as it was', () => {
    const input = [
      resource('zeta', '2026-11-26T10:00:02Z'),
      resource('Beta', '2026-11-26T10:00:01Z'),
      resource('alpha', '2026-11-26T10:00:01Z'),
      resource('first', new Date('2026-11-26T09:59:59Z')),
      resource('unborn', undefined),
    ];
    const before = input.map((r) => r.metadata.name);
    expect(inCreationOrder(input).map((r) => r.metadata.name)).toEqual(['unborn', 'first', 'alpha', 'Beta', 'zeta']);
    expect(input.map((r) => r.metadata.name)).toEqual(before);
  });
});
