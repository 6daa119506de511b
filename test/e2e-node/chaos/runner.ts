// One fault, measured: the load keeps running; the fault is injected; then the runner waits until
// delivery resumed (a message acknowledged after the fault was over reached the webhook) and every
// session is WORKING again, then until every acknowledged message reached the webhook (or a
// generous settle budget ran out: what is missing then is lost).
import { waitFor } from '@switchboard/testkit';
import type { Release } from '../release.js';
import type { Seen } from './deliveries.js';
import type { Fault } from './faults.js';
import type { LoadDriver, LoadSession } from './load.js';

export interface FaultResult {
  readonly fault: string;
  readonly what: string;
  /** Messages acknowledged (201) while this fault's window was open. */
  readonly acked: number;
  /** Acknowledged messages whose message.any never reached the webhook: must be 0. */
  readonly lost: number;
  /** Extra webhook deliveries of an event id already delivered (allowed: at-least-once). */
  readonly duplicates: number;
  /** The same, by session: where they came from. */
  readonly duplicatesBySession: Record<string, number>;
  /** Messages that reached the webhook under a second event id: must be 0. */
  readonly reissued: number;
  /** session.status SCAN_QR_CODE told after the fault: must be 0. */
  readonly newQrs: number;
  /** /ws deliveries of the window (informative: /ws is not durable, a dropped socket misses what passed meanwhile). */
  readonly ws: number;
  /**
   * The longest time without a message reaching the webhook, from the injection until a message
   * sent after the fault was over arrived: how long delivery stopped (0 when the other
   * replicas carried it through).
   */
  readonly resumedMs: number;
  /** The longest time without a send acknowledged in the same span: the client's side of the stall (the port-forward goes to one gateway pod). */
  readonly ackGapMs: number;
  /** From the injection until every session was WORKING again. */
  readonly workingMs: number;
  /** Sends refused or unanswered during the window (never acknowledged, so not counted as lost). */
  readonly refused: number;
  /** The last refused send's answer or error (why sends were refused). */
  readonly lastRefusal: string;
  /** Acknowledged sends per second during the window. */
  readonly rate: number;
  /** Restarts of the fault's engine container (the engine session's) from the injection to the end. */
  readonly engineRestarts: number;
}

export interface RunContext {
  readonly release: Release;
  readonly load: LoadDriver;
  readonly hooks: Seen;
  readonly ws: Seen;
  readonly sessions: readonly LoadSession[];
  /** The session whose engine pod engine faults hit. */
  readonly engineSession: string;
  /** How long every acknowledged message has to arrive after the fault, at most. */
  readonly settleMs?: number;
}

export async function runFault(fault: Fault, ctx: RunContext): Promise<FaultResult> {
  const { release, load, hooks, ws, sessions } = ctx;
  const ackedBefore = new Set(load.acked.keys());
  const hookDupsBefore = hooks.duplicates();
  const dupsBySessionBefore = new Map(hooks.duplicatesBySession);
  const reissuedBefore = hooks.reissued().length;
  const qrsBefore = hooks.totalQrs();
  const wsBefore = ws.deliveries();
  const refusedBefore = load.failed;
  const restartsBefore = await engineRestarts(release, ctx.engineSession);
  const started = Date.now();
  await fault.inject(release, { engineSession: ctx.engineSession });
  const over = Date.now();

  // Delivery resumed: a message sent after the fault was over (and acknowledged) came through the
  // webhook. All WORKING: every session reads WORKING once the fault is over. Both side by side.
  const [resumedAt, workingAt] = await Promise.all([
    waitFor(
      () => {
        for (const [id, ack] of load.acked) if (ack.sentAt >= over && hooks.messageAt.has(id)) return hooks.messageAt.get(id)!;
        return undefined;
      },
      `delivery to resume after ${fault.name}`,
      300_000,
      250,
    ),
    waitFor(
      async () => {
        // A killed engine may still read WORKING before anything noticed: its new WORKING on the webhook counts.
        if (fault.restartsEngine && !((hooks.workingAt.get(ctx.engineSession) ?? 0) > started)) return undefined;
        const statuses = await Promise.all(sessions.map((session) => release.status(session.name)));
        return statuses.every((status) => status === 'WORKING') ? Date.now() : undefined;
      },
      `every session WORKING after ${fault.name}`,
      300_000,
      500,
    ),
  ]);
  if (workingAt - over > SLOW_MS) await explainSlowEngine(release, ctx.engineSession, workingAt - started);
  const windowIds = [...load.acked.keys()].filter((id) => !ackedBefore.has(id));
  const end = Date.now();
  // Every acknowledged message of the window arrives, or what is missing after the budget is lost.
  await waitFor(
    () => windowIds.every((id) => hooks.messageAt.has(id)),
    `every message acknowledged during ${fault.name} on the webhook`,
    ctx.settleMs ?? 120_000,
    500,
  ).catch(() => undefined);
  return {
    fault: fault.name,
    what: fault.what,
    acked: windowIds.length,
    lost: windowIds.filter((id) => !hooks.messageAt.has(id)).length,
    duplicates: hooks.duplicates() - hookDupsBefore,
    duplicatesBySession: Object.fromEntries(
      [...hooks.duplicatesBySession]
        .map(([session, count]) => [session, count - (dupsBySessionBefore.get(session) ?? 0)] as const)
        .filter(([, count]) => count > 0),
    ),
    reissued: hooks.reissued().length - reissuedBefore,
    newQrs: hooks.totalQrs() - qrsBefore,
    ws: ws.deliveries() - wsBefore,
    resumedMs: longestGap(hooks.messageAt.values(), started, resumedAt),
    ackGapMs: longestGap(
      [...load.acked.values()].map((ack) => ack.at),
      started,
      resumedAt,
    ),
    workingMs: Math.max(0, workingAt - started),
    refused: load.failed - refusedBefore,
    lastRefusal: load.failed > refusedBefore ? load.lastError : '',
    rate: (windowIds.length * 1000) / Math.max(1, end - started),
    engineRestarts: (await engineRestarts(release, ctx.engineSession)) - restartsBefore,
  };
}

/** The kubelet's restart count of a session's engine container. */
async function engineRestarts(release: Release, session: string): Promise<number> {
  return ((await release.enginePod(session))?.status?.containerStatuses?.[0]?.restartCount as number | undefined) ?? 0;
}

/** A recovery slower than this after the fault is over prints what the engine pod went through (explainSlowEngine). */
const SLOW_MS = 20_000;

/**
 * What a table row cannot say: how often the fault's engine container restarted since the fault,
 * why the last one ended and what the previous and current containers logged last. A slow
 * recovery that is a kubelet back-off (a container that keeps failing at start) reads here.
 */
async function explainSlowEngine(release: Release, session: string, tookMs: number): Promise<void> {
  const pod = await release.enginePod(session);
  const status = pod?.status?.containerStatuses?.[0];
  const tail = async (previous: boolean) =>
    (await release.kubectl(['logs', `engine-${session}`, '-c', 'engine', '--tail', '25', ...(previous ? ['--previous'] : [])])).stdout;
  console.log(
    `e2e-node chaos: every session WORKING only after ${(tookMs / 1000).toFixed(1)} s; engine-${session}: ` +
      `${status?.restartCount ?? '?'} restarts, last ended ${JSON.stringify(status?.lastState?.terminated ?? null)}\n` +
      `previous container:\n${await tail(true)}\ncurrent container:\n${await tail(false)}`,
  );
}

/** The longest gap between times (in the order they happened: a Map keeps insertion order) within [from, to]. */
function longestGap(times: Iterable<number>, from: number, to: number): number {
  let last = from;
  let gap = 0;
  for (const at of times) {
    if (at < from) continue;
    if (at > to) break;
    gap = Math.max(gap, at - last);
    last = at;
  }
  return Math.max(gap, to - last);
}

/** The results as a Markdown table (what docs/operations.md holds). */
export function table(results: readonly FaultResult[]): string {
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const rows = results.map((r) =>
    [
      r.what,
      r.acked,
      r.lost,
      r.duplicates,
      r.reissued,
      r.newQrs,
      s(r.resumedMs),
      s(r.ackGapMs),
      s(r.workingMs),
      r.refused,
      r.rate.toFixed(0),
      r.ws,
      r.engineRestarts,
    ].join(' | '),
  );
  return [
    '| fault | acknowledged | lost | duplicate deliveries (same id) | re-issued ids | new QRs | longest delivery gap | longest gap in 201s | all WORKING after | sends refused | sends/s | /ws deliveries | engine restarts |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map((row) => `| ${row} |`),
  ].join('\n');
}
