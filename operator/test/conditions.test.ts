import type { Condition } from '@switchboard/protocol';
import { describe, expect, it } from 'vitest';
import { findCondition, setCondition } from '../src/reconcile/conditions.js';

const t0 = new Date('2026-11-21T10:00:00.123Z');
const t1 = new Date('2026-11-21T10:05:00.456Z');

describe('conditions', () => {
  it('a new condition gets the transition time and generation it was computed at', () => {
    const list = setCondition([], { type: 'Ready', status: 'False', reason: 'Starting', message: 'm' }, 3, t0);
    expect(list).toEqual([
      { type: 'Ready', status: 'False', reason: 'Starting', message: 'm', lastTransitionTime: '2026-11-21T10:00:00Z', observedGeneration: 3 },
    ]);
  });

  it('the transition time stays while the status stays, even when reason, message and generation change', () => {
    const first = setCondition([], { type: 'Ready', status: 'False', reason: 'Starting', message: 'a' }, 1, t0);
    const second = setCondition(first, { type: 'Ready', status: 'False', reason: 'ScanQrCode', message: 'b' }, 2, t1);
    expect(second[0]).toMatchObject({ reason: 'ScanQrCode', message: 'b', observedGeneration: 2, lastTransitionTime: '2026-11-21T10:00:00Z' });
  });

  it('the transition time moves when the status flips', () => {
    const first = setCondition([], { type: 'Ready', status: 'False', reason: 'Starting', message: '' }, 1, t0);
    const second = setCondition(first, { type: 'Ready', status: 'True', reason: 'Working', message: '' }, 1, t1);
    expect(findCondition(second, 'Ready')?.lastTransitionTime).toBe('2026-11-21T10:05:00Z');
  });

  it('other conditions and their order are kept; the input is not changed', () => {
    const podReady: Condition = { type: 'PodReady', status: 'True', reason: 'PodReady', message: '', lastTransitionTime: 'x', observedGeneration: 1 };
    const ready: Condition = { ...podReady, type: 'Ready', reason: 'Working' };
    const input = [podReady, ready];
    const out = setCondition(input, { type: 'Ready', status: 'False', reason: 'Stopped', message: '' }, 2, t1);
    expect(out.map((c) => c.type)).toEqual(['PodReady', 'Ready']);
    expect(out[0]).toBe(podReady);
    expect(input[1]).toBe(ready);
    expect(ready.status).toBe('True');
  });
});
