import { describe, expect, it } from 'vitest';
import type { EngineVersion } from '../src/rollout/engine-version.js';
import type { RolloutState } from '../src/rollout/rollout-state.js';
import { amountOf, type Plan, planRollout, type RolloutSettings, type SessionView } from '../src/rollout/wave-planner.js';

const OLD: EngineVersion = { image: 'engine:1', clientVersion: '2.3000.1' };
const NEW: EngineVersion = { image: 'engine:1', clientVersion: '2.3000.2' };
const SETTINGS: RolloutSettings = { canary: { count: 1 }, maxUnavailable: { count: 2 }, workingTimeoutMs: 60_000 };
const T0 = Date.parse('2026-11-29T10:00:00Z');

/** A session on the old version, WORKING, its pod made long ago. */
function session(name: string, overrides: Partial<SessionView> = {}): SessionView {
  return {
    name,
    rollable: true,
    podVersion: OLD,
    podCreatedAt: T0 - 3_600_000,
    working: true,
    report: { status: 'WORKING', at: T0 - 3_000_000, reason: null },
    ...overrides,
  };
}

/**
 * A fleet that does what the operator's reconciles and engines would between two plans: each
 * session the plan wants on a version other than its pod's gets a new pod at `now`, whose engine
 * reports what `outcome` says for that version.
 */
class Fleet {
  sessions: SessionView[];
  state: RolloutState | null = null;
  now = T0;
  /** The most sessions updating at once, over every plan. */
  mostUpdating = 0;

  constructor(
    names: readonly string[],
    private readonly outcome: (name: string, version: EngineVersion) => 'WORKING' | 'FAILED' | null = () => 'WORKING',
  ) {
    this.sessions = names.map((name) => session(name));
  }

  plan(to: EngineVersion = NEW, settings = SETTINGS): Plan {
    const plan = planRollout({ engine: 'NOWEB', previous: this.state, to, sessions: this.sessions, settings, now: this.now });
    this.state = plan.state;
    const updating = Object.values(plan.state?.sessions ?? {}).filter((entry) => entry.state === 'updating').length;
    this.mostUpdating = Math.max(this.mostUpdating, updating);
    return plan;
  }

  /** The version a session's pod is to run after the plan (as the controller's versionFor says). */
  wanted(name: string): EngineVersion | undefined {
    const entry = this.state?.sessions[name];
    if (!entry || !this.state) return undefined;
    return entry.state === 'updating' || entry.state === 'updated' ? this.state.to : entry.from;
  }

  /** Time passes; pods are replaced as wanted; their engines report. */
  step(ms = 5_000): void {
    this.now += ms;
    this.sessions = this.sessions.map((view) => {
      const wanted = this.wanted(view.name);
      if (!wanted || (view.podVersion && sameAs(view.podVersion, wanted))) return view;
      const status = this.outcome(view.name, wanted);
      return {
        ...view,
        podVersion: wanted,
        podCreatedAt: Math.floor(this.now / 1000) * 1000,
        report: status ? { status, at: this.now + 500, reason: status === 'FAILED' ? 'client_outdated' : null } : null,
      };
    });
  }
}

const sameAs = (a: EngineVersion, b: EngineVersion) => a.image === b.image && a.clientVersion === b.clientVersion;
const states = (state: RolloutState | null) => Object.fromEntries(Object.entries(state?.sessions ?? {}).map(([name, entry]) => [name, entry.state]));

describe('the wave planner', () => {
  it('has nothing to do while every pod runs the release version', () => {
    const plan = planRollout({ engine: 'NOWEB', previous: null, to: OLD, sessions: [session('a'), session('b')], settings: SETTINGS, now: T0 });
    expect(plan).toEqual({ state: null, changes: [] });
  });

  it('takes in every rollable session on another version, then replaces the canary alone', () => {
    const sessions = [session('c'), session('a'), session('b'), session('pinned', { rollable: false }), session('fresh', { podVersion: NEW })];
    const plan = planRollout({ engine: 'NOWEB', previous: null, to: NEW, sessions, settings: SETTINGS, now: T0 });
    expect(plan.state).toMatchObject({ engine: 'NOWEB', phase: 'Progressing', from: OLD, to: NEW, wave: 0 });
    expect(states(plan.state)).toEqual({ a: 'updating', b: 'pending', c: 'pending' });
    expect(plan.state!.sessions.a).toMatchObject({ from: OLD, mustWork: true, wave: 0, since: new Date(T0).toISOString() });
    expect(plan.changes).toEqual([{ kind: 'started' }, { kind: 'wave', wave: 0, sessions: ['a'] }]);
  });

  it('rolls a good version through every session in waves of at most maxUnavailable after the canary, and completes', () => {
    const fleet = new Fleet(['s1', 's2', 's3', 's4', 's5', 's6']);
    const waves: string[][] = [];
    for (let i = 0; i < 20 && fleet.state?.phase !== 'Complete'; i++) {
      for (const change of fleet.plan().changes) if (change.kind === 'wave') waves.push([...change.sessions]);
      fleet.step();
    }
    expect(waves).toEqual([['s1'], ['s2', 's3'], ['s4', 's5'], ['s6']]);
    expect(fleet.mostUpdating).toBe(2);
    expect(fleet.state!.phase).toBe('Complete');
    expect(new Set(Object.values(states(fleet.state)))).toEqual(new Set(['updated']));
    expect(fleet.sessions.every((view) => sameAs(view.podVersion!, NEW))).toBe(true);
  });

  it('halts at a canary whose engine reports FAILED: the canary goes back to its own version, the rest stay untouched', () => {
    const fleet = new Fleet(['s1', 's2', 's3'], (_, version) => (sameAs(version, NEW) ? 'FAILED' : 'WORKING'));
    fleet.plan();
    fleet.step();
    const plan = fleet.plan();
    expect(plan.state).toMatchObject({
      phase: 'Halted',
      message: expect.stringContaining('s1: FAILED on engine:1 (client 2.3000.2): client_outdated'),
    });
    expect(states(plan.state)).toEqual({ s1: 'rolled_back', s2: 'pending', s3: 'pending' });
    expect(fleet.wanted('s1')).toEqual(OLD);
    fleet.step();
    // Back on its own version; the others' pods were never replaced.
    expect(fleet.sessions.map((view) => [view.name, view.podVersion, view.podCreatedAt])).toEqual([
      ['s1', OLD, Math.floor(fleet.now / 1000) * 1000],
      ['s2', OLD, T0 - 3_600_000],
      ['s3', OLD, T0 - 3_600_000],
    ]);
    // Halted stays halted: later plans change nothing.
    fleet.step(600_000);
    expect(fleet.plan()).toEqual({ state: plan.state, changes: [] });
  });

  it('halts at a canary that is not WORKING within the bound (an engine that cannot connect): not a moment before', () => {
    const fleet = new Fleet(['s1', 's2'], () => null);
    fleet.plan();
    fleet.step(1_000);
    fleet.now = T0 + SETTINGS.workingTimeoutMs;
    expect(fleet.plan().state!.phase).toBe('Progressing');
    fleet.now += 1;
    const plan = fleet.plan();
    expect(plan.state).toMatchObject({
      phase: 'Halted',
      message: expect.stringContaining('s1: not WORKING on engine:1 (client 2.3000.2) within 60 s'),
    });
    expect(plan.changes).toContainEqual({ kind: 'rolled_back', session: 's1', reason: 'not WORKING on engine:1 (client 2.3000.2) within 60 s' });
  });

  it('never takes the old pod’s report for the new one: a WORKING said before the new pod started does not pass', () => {
    const plan = planRollout({ engine: 'NOWEB', previous: null, to: NEW, sessions: [session('a')], settings: SETTINGS, now: T0 });
    const replaced = session('a', { podVersion: NEW, podCreatedAt: T0 + 2_000, report: { status: 'WORKING', at: T0 + 1_000, reason: null } });
    const next = planRollout({ engine: 'NOWEB', previous: plan.state, to: NEW, sessions: [replaced], settings: SETTINGS, now: T0 + 3_000 });
    expect(states(next.state)).toEqual({ a: 'updating' });
  });

  it('judges a session that was not WORKING by its new engine starting (SCAN_QR_CODE), a WORKING one only by WORKING', () => {
    const sessions = [session('qr', { working: false, report: { status: 'SCAN_QR_CODE', at: T0 - 1, reason: null } }), session('work')];
    const settings = { ...SETTINGS, canary: { count: 2 } };
    const plan = planRollout({ engine: 'NOWEB', previous: null, to: NEW, sessions, settings, now: T0 });
    expect(states(plan.state)).toEqual({ qr: 'updating', work: 'updating' });
    const started = sessions.map((view) => ({
      ...view,
      podVersion: NEW,
      podCreatedAt: T0 + 1_000,
      report: { status: 'SCAN_QR_CODE' as const, at: T0 + 2_000, reason: null },
    }));
    const next = planRollout({ engine: 'NOWEB', previous: plan.state, to: NEW, sessions: started, settings, now: T0 + 3_000 });
    expect(states(next.state)).toEqual({ qr: 'updated', work: 'updating' });
  });

  it('a failing later wave goes back alone: the canary and earlier waves stay on the new version', () => {
    const fleet = new Fleet(['s1', 's2', 's3', 's4', 's5'], (name, version) => (sameAs(version, NEW) && name === 's3' ? 'FAILED' : 'WORKING'));
    for (let i = 0; i < 6 && fleet.state?.phase !== 'Halted'; i++) {
      fleet.plan();
      fleet.step();
    }
    expect(fleet.state!.phase).toBe('Halted');
    expect(states(fleet.state)).toEqual({ s1: 'updated', s2: 'rolled_back', s3: 'rolled_back', s4: 'pending', s5: 'pending' });
    expect(fleet.state!.sessions.s2!.reason).toBe('its wave failed (s3: FAILED on engine:1 (client 2.3000.2): client_outdated)');
  });

  it('a halted rollout starts again from its canary when the version changes again, each session from its own version', () => {
    const fleet = new Fleet(['s1', 's2'], (_, version) => (sameAs(version, NEW) ? 'FAILED' : 'WORKING'));
    fleet.plan();
    fleet.step();
    fleet.plan();
    fleet.step();
    const fixed: EngineVersion = { image: 'engine:2', clientVersion: '2.3000.3' };
    const plan = fleet.plan(fixed);
    expect(plan.state).toMatchObject({ phase: 'Progressing', from: OLD, to: fixed, wave: 0 });
    expect(states(plan.state)).toEqual({ s1: 'updating', s2: 'pending' });
  });

  it('a halted rollout whose state is deleted starts again from its canary', () => {
    const fleet = new Fleet(['s1', 's2'], () => 'FAILED');
    fleet.plan();
    fleet.step();
    expect(fleet.plan().state!.phase).toBe('Halted');
    fleet.step();
    fleet.state = null;
    expect(states(fleet.plan().state)).toEqual({ s1: 'updating', s2: 'pending' });
  });

  it('taking the version back to what every pod runs ends the rollout: Complete, nothing to replace', () => {
    const fleet = new Fleet(['s1', 's2'], () => 'FAILED');
    fleet.plan();
    fleet.step();
    fleet.plan();
    fleet.step();
    const plan = fleet.plan(OLD);
    expect(plan.state).toMatchObject({ phase: 'Complete', from: NEW, to: OLD, sessions: {} });
  });

  it('a session stopped, pinned or deleted while waiting leaves the rollout; a later one on another version joins it', () => {
    const fleet = new Fleet(['s1', 's2', 's3']);
    fleet.plan();
    fleet.sessions = fleet.sessions.filter((view) => view.name !== 's3').map((view) => (view.name === 's2' ? { ...view, rollable: false } : view));
    fleet.sessions.push(session('s4'));
    const plan = fleet.plan();
    expect(states(plan.state)).toEqual({ s1: 'updating', s4: 'pending' });
    expect(plan.changes).toEqual(
      expect.arrayContaining([
        { kind: 'left', session: 's2' },
        { kind: 'left', session: 's3' },
      ]),
    );
  });

  it('counts a share of the sessions taken in, rounded down, at least one', () => {
    expect(amountOf({ percent: 10 }, 35)).toBe(3);
    expect(amountOf({ percent: 10 }, 5)).toBe(1);
    expect(amountOf({ percent: 100 }, 7)).toBe(7);
    expect(amountOf({ count: 4 }, 2)).toBe(4);
  });
});
