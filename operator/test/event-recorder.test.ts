import type { StoredMessagingSession } from '@switchboard/kube';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { EventRecorder } from '../src/event-recorder.js';
import type { KubeClient } from '../src/kube-client.js';

const resource = {
  apiVersion: 'switchboard.dev/v1alpha1',
  kind: 'MessagingSession',
  metadata: { name: 's1', namespace: 'ns', uid: 'u1', resourceVersion: '1' },
  spec: { engine: 'SANDBOX', desiredState: 'Running' },
} as unknown as StoredMessagingSession;

describe('EventRecorder', () => {
  it('does not hold the reconcile that records an event: the write goes out beside it, and settled() waits for it', async () => {
    const written: string[] = [];
    let answer!: () => void;
    const kube = {
      createEvent: (event: { reason: string }) =>
        new Promise<void>((resolve) => {
          answer = () => {
            written.push(event.reason);
            resolve();
          };
        }),
    } as unknown as KubeClient;
    const recorder = new EventRecorder(kube, 'op-a', pino({ level: 'silent' }));

    // Returns at once although the API server has not answered.
    expect(recorder.normal(resource, 'PodCreated', 'Created engine pod engine-s1')).toBeUndefined();
    let settled = false;
    const settling = recorder.settled().then(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);

    answer();
    await settling;
    expect(written).toEqual(['PodCreated']);
  });

  it('logs a write that fails and lets go of it: settled() resolves', async () => {
    const kube = { createEvent: () => Promise.reject(new Error('forbidden')) } as unknown as KubeClient;
    const recorder = new EventRecorder(kube, 'op-a', pino({ level: 'silent' }));
    recorder.warning(resource, 'InvalidSpec', 'bad');
    await expect(recorder.settled()).resolves.toBeUndefined();
  });
});
