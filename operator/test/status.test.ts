import type { MessagingSessionStatus } from '@switchboard/protocol';
import { describe, expect, it } from 'vitest';
import { computeStatus, type EngineReport, type StatusInput, statusChanged } from '../src/reconcile/status.js';
import { enginePod } from './fixtures.js';

const now = new Date('2026-11-21T10:00:00Z');
const me = { id: '15550000000@c.us', pushName: 'Sandbox' };
const working: EngineReport = {
  status: 'WORKING',
  statuses: [
    { status: 'STARTING', timestamp: 1 },
    { status: 'SCAN_QR_CODE', timestamp: 2 },
    { status: 'WORKING', timestamp: 3 },
  ],
  me,
};

function input(overrides: Partial<StatusInput>): StatusInput {
  return { desiredState: 'Running', generation: 2, pod: null, engine: null, previous: undefined, now, ...overrides };
}

describe('status: what the resource reports', () => {
  it('STOPPED when the session should be stopped and has no pod', () => {
    const status = computeStatus(input({ desiredState: 'Stopped' }));
    expect(status).toMatchObject({ status: 'STOPPED', podName: null, observedGeneration: 2 });
  });

  it('STOPPED once the pod of a stopped session is terminating; STARTING when it is being replaced', () => {
    const pod = enginePod({ ready: true, terminating: true });
    expect(computeStatus(input({ desiredState: 'Stopped', pod })).status).toBe('STOPPED');
    expect(computeStatus(input({ desiredState: 'Running', pod, engine: working })).status).toBe('STARTING');
  });

  it('STARTING while there is no pod yet, the pod is pending or not ready, or the engine has not reported', () => {
    expect(computeStatus(input({})).status).toBe('STARTING');
    expect(computeStatus(input({ pod: enginePod({ phase: 'Pending' }), engine: working })).status).toBe('STARTING');
    expect(computeStatus(input({ pod: enginePod({ ready: false }), engine: working })).status).toBe('STARTING');
    expect(computeStatus(input({ pod: enginePod({ ready: true }) })).status).toBe('STARTING');
  });

  it('FAILED for a Failed pod and for a crash-looping engine', () => {
    expect(computeStatus(input({ pod: enginePod({ phase: 'Failed' }), engine: working })).status).toBe('FAILED');
    expect(computeStatus(input({ pod: enginePod({ waitingReason: 'CrashLoopBackOff' }) })).status).toBe('FAILED');
  });

  it("the engine's own status and its last 3 statuses once its pod is ready", () => {
    const status = computeStatus(input({ pod: enginePod({ ready: true }), engine: working }));
    expect(status).toMatchObject({ status: 'WORKING', statuses: working.statuses, me, podName: 'engine-s1' });
  });

  it('an engine that reports FAILED is believed even when its pod is not ready', () => {
    const failed: EngineReport = { status: 'FAILED', statuses: [{ status: 'FAILED', timestamp: 5 }], me: null };
    expect(computeStatus(input({ pod: enginePod({ ready: false }), engine: failed })).status).toBe('FAILED');
  });

  it("reports what the session runs: the pod's image with the engine's library and client version, kept while no engine speaks", () => {
    const image = 'registry.example/switchboard/engine:1.4.0';
    const pod = enginePod({ ready: true, image });
    const reported = { library: { name: 'Baileys', version: '7.0.0-rc14' }, client: '2.3000.1023456789' };
    const status = computeStatus(input({ pod, engine: { ...working, versions: reported } }));
    expect(status.versions).toEqual({ image, ...reported });
    // A report without versions yet (STARTING of the next start), or no pod at all: the last one stays.
    expect(computeStatus(input({ pod, engine: working, previous: status })).versions).toEqual(status.versions);
    expect(computeStatus(input({ desiredState: 'Stopped', previous: status })).versions).toEqual(status.versions);
    expect(computeStatus(input({ pod, engine: working })).versions).toBeNull();
    // Another client version is another status to write.
    const next = computeStatus(input({ pod, engine: { ...working, versions: { ...reported, client: '2.3000.1' } }, previous: status }));
    expect(next.versions?.client).toBe('2.3000.1');
    expect(statusChanged(status, next)).toBe(true);
  });

  it('a null client version (SANDBOX presents none), which the merge patch stores as no client, is no change', () => {
    const pod = enginePod({ ready: true, image: 'engine:1' });
    const computed = computeStatus(
      input({ pod, engine: { ...working, versions: { library: { name: 'SANDBOX', version: '1.0.0' }, client: null } } }),
    );
    expect(computed.versions).toEqual({ image: 'engine:1', library: { name: 'SANDBOX', version: '1.0.0' }, client: null });
    const { client: _dropped, ...stored } = computed.versions!;
    expect(statusChanged({ ...computed, versions: stored }, computed)).toBe(false);
  });

  it('says why it is FAILED in status.reason (the engine, the refusal or the pod), and nothing in any other status', () => {
    const failed: EngineReport = { status: 'FAILED', statuses: [{ status: 'FAILED', timestamp: 5 }], me: null, reason: 'could not connect' };
    expect(computeStatus(input({ pod: enginePod({ ready: true }), engine: failed })).reason).toBe('could not connect');
    const refusal = { reason: 'InvalidSpec' as const, message: 'spec.engine: not an engine' };
    expect(computeStatus(input({ refusal })).reason).toBe('spec.engine: not an engine');
    expect(computeStatus(input({ pod: enginePod({ phase: 'Failed' }) })).reason).toMatch(/^engine pod engine-s1 failed: /);
    const previous = computeStatus(input({ pod: enginePod({ ready: true }), engine: failed }));
    expect(computeStatus(input({ desiredState: 'Stopped', previous })).reason).toBeNull();
    expect(computeStatus(input({ pod: enginePod({ ready: true }), engine: working, previous })).reason).toBeNull();
  });

  it("the operator's own statuses are appended to the recent 3, once per change", () => {
    const previous: MessagingSessionStatus = { status: 'WORKING', statuses: [...working.statuses] };
    const stopped = computeStatus(input({ desiredState: 'Stopped', previous }));
    expect(stopped.statuses).toEqual([...working.statuses.slice(1), { status: 'STOPPED', timestamp: now.getTime() }]);
    const again = computeStatus(input({ desiredState: 'Stopped', previous: stopped, now: new Date(now.getTime() + 5_000) }));
    expect(again.statuses).toEqual(stopped.statuses);
  });
});

describe('status: me follows the pairing', () => {
  it('is the envelope me of the latest WORKING report', () => {
    expect(computeStatus(input({ pod: enginePod({ ready: true }), engine: working })).me).toEqual(me);
  });

  it('is kept through STOPPED, STARTING and FAILED: stopping keeps the pairing', () => {
    const previous: MessagingSessionStatus = { status: 'WORKING', me };
    expect(computeStatus(input({ desiredState: 'Stopped', previous })).me).toEqual(me);
    expect(computeStatus(input({ previous, pod: enginePod({ phase: 'Pending' }) })).me).toEqual(me);
    const starting: EngineReport = { status: 'STARTING', statuses: [], me: null };
    expect(computeStatus(input({ previous, pod: enginePod({ ready: true }), engine: starting })).me).toEqual(me);
  });

  it('is cleared when the engine asks for pairing again (after a logout)', () => {
    const qr: EngineReport = { status: 'SCAN_QR_CODE', statuses: [], me: null };
    expect(computeStatus(input({ previous: { me }, pod: enginePod({ ready: true }), engine: qr })).me).toBeNull();
  });
});

describe('status: conditions', () => {
  it('Ready is True exactly when the session is WORKING; PodReady follows the pod; then Paired, EngineConnected and Degraded', () => {
    const up = computeStatus(input({ pod: enginePod({ ready: true }), engine: working }));
    expect(up.conditions.map((c) => [c.type, c.status, c.reason])).toEqual([
      ['Ready', 'True', 'Working'],
      ['PodReady', 'True', 'PodReady'],
      ['Paired', 'True', 'AccountPaired'],
      ['EngineConnected', 'True', 'Connected'],
      ['Degraded', 'False', 'AsExpected'],
    ]);
    const down = computeStatus(input({ pod: enginePod({ ready: false }) }));
    expect(down.conditions.map((c) => [c.type, c.status, c.reason])).toEqual([
      ['Ready', 'False', 'Starting'],
      ['PodReady', 'False', 'PodNotReady'],
      ['Paired', 'Unknown', 'NotReported'],
      ['EngineConnected', 'False', 'PodNotReady'],
      ['Degraded', 'False', 'AsExpected'],
    ]);
  });

  it('every condition carries the generation it was computed from', () => {
    const status = computeStatus(input({ generation: 7 }));
    expect(status.conditions.every((c) => c.observedGeneration === 7)).toBe(true);
    expect(status.observedGeneration).toBe(7);
  });

  it('names the waiting reason of a pod that is not ready', () => {
    const status = computeStatus(input({ pod: enginePod({ waitingReason: 'ImagePullBackOff' }) }));
    expect(status.conditions.find((c) => c.type === 'PodReady')?.message).toContain('ImagePullBackOff');
  });
});

describe('status: written only when it changed', () => {
  it('an unchanged status is not written again; missing and null are the same', () => {
    const status = computeStatus(input({ desiredState: 'Stopped' }));
    const { me: _me, podName: _podName, ...asStored } = status;
    expect(statusChanged(asStored, status)).toBe(false);
    expect(statusChanged(undefined, status)).toBe(true);
    expect(statusChanged({ ...status, status: 'STARTING' }, status)).toBe(true);
  });

  it('recomputing from the written status keeps it stable (no write loop)', () => {
    const first = computeStatus(input({ pod: enginePod({ ready: true }), engine: working }));
    const second = computeStatus(input({ pod: enginePod({ ready: true }), engine: working, previous: first, now: new Date(now.getTime() + 60_000) }));
    expect(statusChanged(first, second)).toBe(false);
  });
});
