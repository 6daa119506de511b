import { type RunningOperator, startOperator } from '@switchboard/operator';
import { enginePodName } from '@switchboard/protocol';
import { names, prepareCluster, startControlPlane, watchPods, withTimeout } from './cluster-bench.js';
import { recordResults } from './results.js';
import { elapsedMs, inPool } from './stats.js';
import { numberSetting } from './settings.js';

/**
 * 200 MessagingSessions reconciled into engine pods by the operator, beside the floor it cannot
 * beat, in the same run against the same real control plane (etcd + kube-apiserver from
 * test/e2e/support, no kubelet: pods are objects, nothing runs them):
 *  - baseline: 200 pods of the very shape the operator builds, created directly through the API;
 *  - product: 200 MessagingSession CRs (SANDBOX, desiredState Running) created, and the operator
 *    (in process, real NATS) reconciling them, until all 200 engine pods exist.
 * Both are timed from the first create to the last pod seen by a watch on the engine label.
 */
const SESSIONS = numberSetting('BENCH_SESSIONS', 200);
/** Creates in flight, for the CRs and for the baseline's pods alike. */
const CREATE_CONCURRENCY = numberSetting('BENCH_CREATE_CONCURRENCY', 16);
const WARMUP = numberSetting('BENCH_RECONCILE_WARMUP', 5);
const DIRECT_NS = 'bench-direct';
const OPERATOR_NS = 'bench-operator';

async function main(): Promise<void> {
  const started = process.hrtime.bigint();
  const { cp, nats } = await startControlPlane();
  let operator: RunningOperator | null = null;
  const watches: AbortController[] = [];
  try {
    console.error(`control plane and NATS up in ${(elapsedMs(started) / 1000).toFixed(1)} s`);
    const { kubeConfig, core, config, createDirectPod, createSession } = await prepareCluster(cp, nats, { direct: DIRECT_NS, operator: OPERATOR_NS });

    /** Resolves, once the watch is open, to a promise of when the last of `podNames` was added. */
    const podsSeen = async (namespace: string, podNames: readonly string[]) => {
      const { controller, allSeen } = await watchPods(kubeConfig, core, namespace, podNames);
      watches.push(controller);
      return { allSeen };
    };

    // Warm-up, not measured: the API server's caches and this process's JIT; for the product,
    // also proof that the operator leads, its caches are synced and its workers run.
    const warmDirect = names('warm', WARMUP);
    const warmDirectSeen = await podsSeen(DIRECT_NS, warmDirect.map(enginePodName));
    await inPool(warmDirect, CREATE_CONCURRENCY, async (name) => void (await createDirectPod(name)));
    await withTimeout(warmDirectSeen.allSeen, 'warm-up pods');

    operator = await startOperator(config);
    const warmOperator = names('warm', WARMUP);
    const warmOperatorSeen = await podsSeen(OPERATOR_NS, warmOperator.map(enginePodName));
    await inPool(warmOperator, CREATE_CONCURRENCY, async (name) => void (await createSession(name)));
    await withTimeout(warmOperatorSeen.allSeen, 'the operator reconciling the warm-up sessions');

    // Baseline: the pods alone, straight to the API.
    const direct = names('s', SESSIONS);
    const directSeen = await podsSeen(DIRECT_NS, direct.map(enginePodName));
    const directStart = process.hrtime.bigint();
    await inPool(direct, CREATE_CONCURRENCY, async (name) => void (await createDirectPod(name)));
    const directCreatedMs = elapsedMs(directStart);
    const directMs = elapsedMs(directStart, await withTimeout(directSeen.allSeen, 'the direct pods'));

    // Product: the CRs, and the operator making their pods.
    const sessions = names('s', SESSIONS);
    const operatorSeen = await podsSeen(OPERATOR_NS, sessions.map(enginePodName));
    const operatorStart = process.hrtime.bigint();
    await inPool(sessions, CREATE_CONCURRENCY, async (name) => void (await createSession(name)));
    const crsCreatedMs = elapsedMs(operatorStart);
    const operatorMs = elapsedMs(operatorStart, await withTimeout(operatorSeen.allSeen, 'the operator reconciling the sessions'));

    print({ directMs, directCreatedMs, operatorMs, crsCreatedMs, workers: config.workers });
  } finally {
    for (const controller of watches) controller.abort();
    await operator?.stop();
    await nats.stop();
    await cp.stop();
  }
}

function print(r: { directMs: number; directCreatedMs: number; operatorMs: number; crsCreatedMs: number; workers: number }): void {
  const rate = (ms: number) => SESSIONS / (ms / 1000);
  const row = (name: string, ms: number, note: string) =>
    `  ${name.padEnd(44)} ${(ms / 1000).toFixed(2).padStart(7)} s   ${rate(ms).toFixed(1).padStart(7)} sessions/s   ${note}`;
  console.log(`\nreconcile ${SESSIONS} MessagingSessions (SANDBOX, Running) into engine pods; real etcd + kube-apiserver, no kubelet`);
  console.log(`creates: ${CREATE_CONCURRENCY} in flight; operator workers: ${r.workers}`);
  console.log(row('direct: create the pods through the API', r.directMs, `(creates answered after ${(r.directCreatedMs / 1000).toFixed(2)} s)`));
  console.log(row('operator: create CRs, wait for engine pods', r.operatorMs, `(CRs created after ${(r.crsCreatedMs / 1000).toFixed(2)} s)`));
  const ratio = rate(r.operatorMs) / rate(r.directMs);
  console.log(`throughput ratio (operator / direct): ${ratio.toFixed(2)}   target >= 0.5: ${ratio >= 0.5 ? 'met' : 'NOT met'}\n`);
  recordResults('reconcile', [
    {
      name: `reconcile ${SESSIONS} sessions`,
      value: rate(r.operatorMs),
      unit: 'sessions/s',
      baseline: rate(r.directMs),
      target: { of: 'ratio', atLeast: 0.5 },
    },
  ]);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
