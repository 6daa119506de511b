import { type Condition, MessagingSessionStatus, type SessionStatus } from '@switchboard/protocol';
import { describe, expect, it } from 'vitest';
import { computeStatus, type EngineReport, type Refusal, type StatusInput } from '../src/reconcile/status.js';
import { enginePod } from './fixtures.js';

// docs/operations.md, "Conditions": what each condition a platform team alerts on means.

const now = new Date('2026-11-21T10:00:00Z');
const me = { id: '15550000000@c.us', pushName: 'Sandbox' };
const report = (status: SessionStatus, extra: Partial<EngineReport> = {}): EngineReport => ({
  status,
  statuses: [{ status, timestamp: 1 }],
  me: status === 'WORKING' ? me : null,
  ...extra,
});
const refusal: Refusal = { reason: 'EngineNotAvailable', message: 'engine GOWS is not in this build; available: SANDBOX' };

function input(overrides: Partial<StatusInput>): StatusInput {
  return { desiredState: 'Running', generation: 2, pod: null, engine: null, previous: undefined, now, ...overrides };
}
function conditionOf(status: ReturnType<typeof computeStatus>, type: string): Pick<Condition, 'status' | 'reason'> {
  const { status: value, reason } = status.conditions.find((c) => c.type === type)!;
  return { status: value, reason };
}
const ready = enginePod({ ready: true });

describe('conditions: Paired', () => {
  it('True with the account once the engine reports WORKING, and kept while the session is stopped', () => {
    const working = computeStatus(input({ pod: ready, engine: report('WORKING') }));
    expect(conditionOf(working, 'Paired')).toEqual({ status: 'True', reason: 'AccountPaired' });
    expect(working.conditions.find((c) => c.type === 'Paired')?.message).toContain(me.id);
    const stopped = computeStatus(input({ desiredState: 'Stopped', previous: working }));
    expect(conditionOf(stopped, 'Paired')).toEqual({ status: 'True', reason: 'AccountPaired' });
  });

  it('False while the engine asks for pairing, named by what it waits for, and still False once its pod is gone', () => {
    const qr = computeStatus(input({ pod: ready, engine: report('SCAN_QR_CODE') }));
    expect(conditionOf(qr, 'Paired')).toEqual({ status: 'False', reason: 'ScanQrCode' });
    expect(conditionOf(computeStatus(input({ pod: ready, engine: report('PASSKEY_REQUIRED') })), 'Paired')).toEqual({
      status: 'False',
      reason: 'PasskeyRequired',
    });
    const stopped = computeStatus(input({ desiredState: 'Stopped', previous: qr }));
    expect(conditionOf(stopped, 'Paired')).toEqual({ status: 'False', reason: 'ScanQrCode' });
  });

  it('Unknown until an engine has said either', () => {
    expect(conditionOf(computeStatus(input({})), 'Paired')).toEqual({ status: 'Unknown', reason: 'NotReported' });
    expect(conditionOf(computeStatus(input({ pod: ready, engine: report('STARTING') })), 'Paired').status).toBe('Unknown');
  });
});

describe('conditions: EngineConnected', () => {
  it('True while the engine talks to the messaging service, paired or being paired', () => {
    for (const status of ['WORKING', 'SCAN_QR_CODE', 'PASSKEY_REQUIRED', 'PASSKEY_CONFIRMATION_REQUIRED'] as const) {
      expect(conditionOf(computeStatus(input({ pod: ready, engine: report(status) })), 'EngineConnected'), status).toEqual({
        status: 'True',
        reason: 'Connected',
      });
    }
  });

  it('False, saying why, while no engine runs or it is still connecting; Unknown while a ready pod has not reported', () => {
    const cases: [Partial<StatusInput>, string, string][] = [
      [{ desiredState: 'Stopped' }, 'False', 'Stopped'],
      [{}, 'False', 'PodMissing'],
      [{ pod: enginePod({ ready: true, terminating: true }) }, 'False', 'PodTerminating'],
      [{ pod: enginePod({ phase: 'Failed' }) }, 'False', 'PodFailed'],
      [{ pod: enginePod({ ready: false }) }, 'False', 'PodNotReady'],
      [{ pod: ready, engine: report('STARTING') }, 'False', 'Connecting'],
      [{ pod: ready, engine: report('FAILED', { reason: 'logged out' }) }, 'False', 'EngineFailed'],
      [{ refusal }, 'False', 'EngineNotAvailable'],
      [{ pod: ready }, 'Unknown', 'NotReported'],
    ];
    for (const [overrides, status, reason] of cases) {
      expect(conditionOf(computeStatus(input(overrides)), 'EngineConnected'), reason).toEqual({ status, reason });
    }
  });
});

describe('conditions: EngineConnected after a silent connection (issue 31 §3)', () => {
  const reason = 'silent: nothing received from the messaging service for 60000 ms; reconnecting';
  const silence = { at: Date.parse('2026-11-21T09:59:00Z'), reason };

  it('False with reason Silent while the engine reconnects a silent connection, the reason in the message', () => {
    const starting = computeStatus(input({ pod: ready, engine: report('STARTING', { reason, silence }) }));
    expect(conditionOf(starting, 'EngineConnected')).toEqual({ status: 'False', reason: 'Silent' });
    expect(starting.conditions.find((c) => c.type === 'EngineConnected')?.message).toContain(reason);
    // A reconnect is not something to act on: not degraded, and the status keeps no failure.
    expect(conditionOf(starting, 'Degraded')).toEqual({ status: 'False', reason: 'AsExpected' });
    expect(starting.reason).toBeNull();
  });

  it('True with reason ReconnectedAfterSilence once WORKING again, saying when; Connected for a pod that had none', () => {
    const working = computeStatus(input({ pod: ready, engine: report('WORKING', { silence }) }));
    expect(conditionOf(working, 'EngineConnected')).toEqual({ status: 'True', reason: 'ReconnectedAfterSilence' });
    expect(working.conditions.find((c) => c.type === 'EngineConnected')?.message).toContain('went silent at 2026-11-21T09:59:00.000Z');
    expect(conditionOf(working, 'Ready')).toEqual({ status: 'True', reason: 'Working' });
    expect(conditionOf(computeStatus(input({ pod: ready, engine: report('WORKING', { silence: null }) })), 'EngineConnected')).toEqual({
      status: 'True',
      reason: 'Connected',
    });
  });

  it('a STARTING for another reason is still Connecting', () => {
    expect(conditionOf(computeStatus(input({ pod: ready, engine: report('STARTING', { reason: 'something else' }) })), 'EngineConnected')).toEqual({
      status: 'False',
      reason: 'Connecting',
    });
  });
});

describe('conditions: Degraded', () => {
  it('True while someone must act: a refused spec, an engine that gave up, a failed pod, a pod that cannot start', () => {
    const cases: [Partial<StatusInput>, string][] = [
      [{ refusal }, 'EngineNotAvailable'],
      [{ refusal: { reason: 'InvalidSpec', message: 'spec.config.webhooks.0.url: must be an http or https URL' } }, 'InvalidSpec'],
      [{ pod: ready, engine: report('FAILED', { reason: 'could not connect' }) }, 'EngineFailed'],
      [{ pod: enginePod({ waitingReason: 'CrashLoopBackOff' }) }, 'PodFailed'],
      [{ pod: enginePod({ phase: 'Failed' }) }, 'PodFailed'],
      [{ pod: enginePod({ waitingReason: 'ImagePullBackOff' }) }, 'PodCannotStart'],
      [{ pod: enginePod({ waitingReason: 'CreateContainerConfigError' }) }, 'PodCannotStart'],
    ];
    for (const [overrides, reason] of cases) {
      expect(conditionOf(computeStatus(input(overrides)), 'Degraded'), reason).toEqual({ status: 'True', reason });
    }
    const failed = computeStatus(input({ pod: ready, engine: report('FAILED', { reason: 'could not connect' }) }));
    expect(failed.conditions.find((c) => c.type === 'Degraded')?.message).toBe('could not connect');
  });

  it('False while the session starts, waits to be paired, works or is stopped', () => {
    const cases: Partial<StatusInput>[] = [
      {},
      { desiredState: 'Stopped' },
      { pod: enginePod({ phase: 'Pending' }) },
      { pod: enginePod({ waitingReason: 'ContainerCreating' }) },
      { pod: ready, engine: report('SCAN_QR_CODE') },
      { pod: ready, engine: report('WORKING') },
    ];
    for (const overrides of cases) {
      expect(conditionOf(computeStatus(input(overrides)), 'Degraded'), JSON.stringify(overrides)).toEqual({ status: 'False', reason: 'AsExpected' });
    }
  });
});

describe('conditions: what the operator writes, the CRD takes', () => {
  const statuses: SessionStatus[] = ['STOPPED', 'STARTING', 'SCAN_QR_CODE', 'PASSKEY_REQUIRED', 'PASSKEY_CONFIRMATION_REQUIRED', 'WORKING', 'FAILED'];
  const pods = [
    null,
    ready,
    enginePod({ ready: false }),
    enginePod({ phase: 'Failed' }),
    enginePod({ waitingReason: 'ImagePullBackOff' }),
    enginePod({ ready: true, terminating: true }),
  ];

  it('every status it computes is a valid MessagingSessionStatus (metav1.Condition reasons, lengths, date-times), Ready the and of Paired and EngineConnected', () => {
    for (const pod of pods) {
      for (const engine of [null, ...statuses.map((s) => report(s, { reason: 'why' }))]) {
        for (const refused of [null, refusal]) {
          for (const desiredState of ['Running', 'Stopped'] as const) {
            const status = computeStatus(input({ pod, engine, refusal: refused, desiredState }));
            const what = JSON.stringify({ pod: pod?.status, engine: engine?.status, refused, desiredState });
            const parsed = MessagingSessionStatus.safeParse(status);
            expect(parsed.success, `${what}: ${parsed.error?.message}`).toBe(true);
            // Ready is True exactly when Paired and EngineConnected both are.
            const isTrue = (type: string) => status.conditions.find((c) => c.type === type)?.status === 'True';
            expect(isTrue('Ready'), what).toBe(isTrue('Paired') && isTrue('EngineConnected'));
          }
        }
      }
    }
  });

  it("an engine's reason longer than a condition message may be is cut, in status.reason and in every message", () => {
    const long = `${'x'.repeat(40_000)}`;
    const status = computeStatus(input({ pod: ready, engine: report('FAILED', { reason: long }) }));
    expect(MessagingSessionStatus.safeParse(status).success).toBe(true);
    expect(status.reason).toHaveLength(32_768);
    expect(status.reason?.endsWith('…')).toBe(true);
    const refused = computeStatus(input({ refusal: { reason: 'InvalidSpec', message: long } }));
    expect(MessagingSessionStatus.safeParse(refused).success).toBe(true);
  });
});
