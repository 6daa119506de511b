import { type ChildProcess, fork, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CustomObjectsApi, type KubeConfig, Watch } from '@kubernetes/client-node';
import { type RunningOperator, startOperator } from '@switchboard/operator';
import { enginePodName, MESSAGING_SESSION, STREAMS, SUBJECTS } from '@switchboard/protocol';
import { connect } from 'nats';
import { names, prepareCluster, startControlPlane, watchPods, withTimeout } from './cluster-bench.js';
import { runLoad } from './load.js';
import { type FigureInput, recordResults } from './results.js';
import { numberSetting } from './settings.js';
import { elapsedMs, inPool } from './stats.js';

/**
 * Issue 17, part 2: a thousand MessagingSessions through one control plane, in cluster mode on
 * this machine, beside the same run's figures for a hundred so growth shows. Real etcd +
 * kube-apiserver (test/e2e/support), real NATS with JetStream, the real operator (in this
 * process, as in reconcile.ts) and the real gateway (`gateway/dist/main.js`, cluster mode, one
 * process per replica). Engine pods are API objects only: ONE load process (`scale-engines.ts`)
 * stands in for all of them and for the kubelet, running each pod's own engine code (SANDBOX)
 * over the real NATS. Per size:
 *  - the pods created directly (the floor), then the CRs created and timed until the operator
 *    has made every pod (reconcile ratio, target >= 0.5) and until every session's status is
 *    WORKING (each is paired by a simulated scan as soon as it shows a QR code);
 *  - the gateway's RSS per session (after all are WORKING, minus before any existed) and
 *    `GET /api/sessions` p50/p99 (autocannon, 4 connections; target p99 <= 50 ms);
 *  - every session receiving one message a second for BENCH_SCALE_SECONDS (30), each `message`
 *    event delivered to a webhook (one per session, the same receiver) and to a /ws client
 *    subscribed to `*`: deliveries/s, p99 from the event's envelope timestamp to arrival
 *    (target <= 100 ms), and nothing lost or twice (counted by event id);
 *  - the same load with two gateway replicas: each delivers its share of the webhooks (they
 *    share one JetStream consumer), none twice, none lost; a /ws client on each gets every event.
 */
const SIZES = (process.env.BENCH_SCALE_SIZES ?? '100,1000').split(',').map(Number);
const SECONDS = numberSetting('BENCH_SCALE_SECONDS', 30);
const CREATE_CONCURRENCY = numberSetting('BENCH_CREATE_CONCURRENCY', 16);
const API_KEY = 'bench-scale-admin-key-0123456789';
const DIRECT_NS = 'bench-direct';
const NS = 'bench-scale';
const { group, version, plural } = MESSAGING_SESSION;
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

interface Delivery {
  readonly received: number;
  readonly unique: number;
  readonly duplicates: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly perSource: number[];
}
interface LoadFigures {
  readonly sent: number;
  /** `message` events stored in JetStream during the load: what should arrive. */
  readonly made: number;
  readonly ok: number;
  readonly failed: number;
  readonly lateP99Ms: number;
  readonly seconds: number;
  readonly webhook: Delivery;
  readonly ws: Delivery;
  /** With BENCH_SCALE_STAGES: the events as a plain NATS subscriber got them, before any gateway. */
  readonly nats?: Delivery;
  /** Webhook deliveries per replica, from each one's /metrics. */
  readonly perReplica: number[];
}
interface SizeFigures {
  readonly sessions: number;
  /** Stand-ins whose engine stopped (its lease not renewed in time) and were started again. */
  readonly restarts: number;
  readonly directMs: number;
  readonly podsMs: number;
  readonly workingMs: number;
  readonly gatewayRssBefore: number;
  readonly gatewayRssAfter: number;
  readonly enginesRss: number;
  readonly list: { p50: number; p99: number; rps: number; non2xx: number };
  readonly one: LoadFigures;
  readonly two: LoadFigures;
}

/** A forked helper answering typed messages. */
class Child {
  private constructor(private readonly child: ChildProcess) {}
  static async fork(script: string, env: Record<string, string> = {}): Promise<{ child: Child; up: Record<string, unknown> }> {
    const child = fork(fileURLToPath(new URL(script, import.meta.url)), { env: { ...process.env, ...env } });
    const up = await new Promise<Record<string, unknown>>((resolve, reject) => {
      child.once('message', (message: Record<string, unknown>) => resolve(message));
      child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
    });
    return { child: new Child(child), up };
  }
  ask<T>(message: { type: string } & Record<string, unknown>): Promise<T> {
    return new Promise((resolve) => {
      const listener = (reply: { type: string }) => {
        if (reply.type !== message.type) return;
        this.child.off('message', listener);
        resolve(reply as T);
      };
      this.child.on('message', listener);
      this.child.send(message);
    });
  }
  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.send({ type: 'stop' });
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
  }
}

async function main(): Promise<void> {
  console.log(
    `scale: cluster mode, real etcd + kube-apiserver + NATS, the real operator and gateway; engine pods are API objects only,\n` +
      `stood in for by ONE load process that runs each pod's engine code (SANDBOX) over the real NATS and reports the pods Ready as a kubelet would`,
  );
  const results: SizeFigures[] = [];
  for (const sessions of SIZES) {
    const started = performance.now();
    results.push(await measureSize(sessions));
    console.error(`scale: ${sessions} sessions measured in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    // After each size, every size so far: a larger size that does not finish leaves the smaller ones' figures.
    print(results);
  }
}

async function measureSize(sessions: number): Promise<SizeFigures> {
  const began = performance.now();
  const step = (what: string) => console.error(`scale ${sessions}: ${what} (${((performance.now() - began) / 1000).toFixed(0)} s)`);
  const { cp, nats } = await startControlPlane();
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-bench-scale-'));
  const stops: (() => Promise<unknown>)[] = [() => cp.stop(), () => nats.stop()];
  try {
    const { kubeConfig, core, config, createDirectPod, createSession } = await prepareCluster(cp, nats, { direct: DIRECT_NS, operator: NS });
    const nc = await connect({ servers: nats.url, name: 'bench scale' });
    stops.push(() => nc.close());
    const messagesStored = async () => {
      const info = await (await nc.jetstreamManager()).streams.info(STREAMS.events, { subjects_filter: SUBJECTS.event('*', 'message') });
      return Object.values(info.state.subjects ?? {}).reduce((sum, count) => sum + count, 0);
    };

    const { child: observer, up } = await Child.fork('./scale-observer.js');
    stops.push(() => observer.stop());
    const hookUrl = `http://127.0.0.1:${String(up.port)}/hook`;
    if (process.env.BENCH_SCALE_STAGES) await observer.ask({ type: 'nats', url: nats.url });

    // Baseline: the same number of pods, as the operator builds them, straight to the API.
    const warm = names('warm', 5);
    const warmSeen = await watchPods(kubeConfig, core, DIRECT_NS, warm.map(enginePodName));
    await inPool(warm, CREATE_CONCURRENCY, async (name) => void (await createDirectPod(name)));
    await withTimeout(warmSeen.allSeen, 'warm-up pods');
    warmSeen.controller.abort();
    const direct = names('d', sessions);
    const directSeen = await watchPods(kubeConfig, core, DIRECT_NS, direct.map(enginePodName));
    const directStart = process.hrtime.bigint();
    await inPool(direct, CREATE_CONCURRENCY, async (name) => void (await createDirectPod(name)));
    const directMs = elapsedMs(directStart, await withTimeout(directSeen.allSeen, 'the direct pods'));
    directSeen.controller.abort();

    step('direct pods created');
    const { child: engines } = await Child.fork('./scale-engines.js', {
      KUBECONFIG: cp.kubeconfigPath,
      BENCH_NAMESPACE: NS,
      BENCH_NATS_URL: nats.url,
    });
    stops.push(() => engines.stop());
    const operator: RunningOperator = await startOperator(config);
    stops.push(() => operator.stop());
    while (!operator.isLeader) await new Promise((resolve) => setTimeout(resolve, 50));

    const startGateway = async (label: string) => {
      const gateway = startProcess({
        label,
        script: join(repoRoot, 'gateway/dist/main.js'),
        logPath: join(dir, `${label}.log`),
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          SWITCHBOARD_MODE: 'cluster',
          KUBECONFIG: cp.kubeconfigPath,
          SWITCHBOARD_NAMESPACE: NS,
          SWITCHBOARD_NATS_URL: nats.url,
          SWITCHBOARD_API_KEY: API_KEY,
          SWITCHBOARD_DEFAULT_ENGINE: 'SANDBOX',
          HOST: '127.0.0.1',
          PORT: '0',
        },
      });
      stops.push(() => gateway.stop());
      return { process: gateway, url: await gateway.listening };
    };
    const gatewayA = await startGateway('gateway-a');
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const gatewayRssBefore = rssOf(gatewayA.process.pid);

    // Product: the CRs, until the operator has made every pod, and until every session is WORKING.
    const crs = names('s', sessions);
    const podsSeen = await watchPods(kubeConfig, core, NS, crs.map(enginePodName));
    const working = await watchWorking(kubeConfig, crs);
    const createStart = process.hrtime.bigint();
    await inPool(crs, CREATE_CONCURRENCY, async (name) => {
      await createSession(name, { config: { webhooks: [{ url: hookUrl, events: ['message'] }] } });
    });
    step('CRs created');
    const progress = setInterval(() => step(`${sessions - podsSeen.missing()} pods, ${sessions - working.missing()} sessions WORKING`), 15_000);
    stops.push(() => Promise.resolve(clearInterval(progress)));
    const podsMs = elapsedMs(createStart, await withTimeout(podsSeen.allSeen, 'the operator creating the pods', 900_000));
    podsSeen.controller.abort();
    step('every pod created');
    const workingMs = elapsedMs(createStart, await withTimeout(working.allWorking, 'every session WORKING', 900_000));
    clearInterval(progress);
    working.controller.abort();

    // The gateway with every session: its list answers, then its memory.
    await waitForList(gatewayA.url, sessions);
    const listRun = await runLoad({
      url: `${gatewayA.url}/api/sessions`,
      method: 'GET',
      headers: { 'x-api-key': API_KEY },
      seconds: 5,
      connections: 4,
    });
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const gatewayRssAfter = rssOf(gatewayA.process.pid);
    const enginesRss = (await engines.ask<{ rss: number }>({ type: 'stats' })).rss;
    const restartsOf = async () => (await engines.ask<{ restarts: number }>({ type: 'stats' })).restarts;

    const load = async (urls: string[]): Promise<LoadFigures> => {
      await observer.ask({ type: 'ws', urls, apiKey: API_KEY });
      await observer.ask({ type: 'reset' });
      const before = await Promise.all(urls.map(webhookDeliveries));
      const storedBefore = await messagesStored();
      const began = performance.now();
      const run = await engines.ask<{ sent: number; ok: number; failed: number; lateP99Ms: number }>({
        type: 'load',
        perSecond: 1,
        seconds: SECONDS,
      });
      // Until every event made has arrived both ways, or nothing more arrives for 10 s.
      let last = -1;
      let quietSince = performance.now();
      let stats = await observer.ask<{ webhook: Delivery; ws: Delivery; nats?: Delivery }>({ type: 'stats' });
      // What the engines made is what JetStream stored (a command answered late, on a starved
      // machine, may still have made its event): the count of `message` events in the stream.
      let made = (await messagesStored()) - storedBefore;
      while (stats.webhook.unique < made || stats.ws.unique < made * urls.length) {
        const total = stats.webhook.received + stats.ws.received;
        if (total !== last) quietSince = performance.now();
        else if (performance.now() - quietSince > 10_000) break;
        last = total;
        await new Promise((resolve) => setTimeout(resolve, 200));
        stats = await observer.ask({ type: 'stats' });
        made = (await messagesStored()) - storedBefore;
      }
      const seconds = (performance.now() - began) / 1000;
      const after = await Promise.all(urls.map(webhookDeliveries));
      return {
        ...run,
        made,
        seconds,
        webhook: stats.webhook,
        ws: stats.ws,
        ...(stats.nats ? { nats: stats.nats } : {}),
        perReplica: after.map((count, i) => count - before[i]!),
      };
    };
    step('every session WORKING, list and memory measured');
    const one = await load([gatewayA.url]);
    step('load through one gateway done');
    const gatewayB = await startGateway('gateway-b');
    // Its list in sync; a stand-in restarted meanwhile may be on its way back to WORKING.
    await waitForList(gatewayB.url, sessions, false);
    const two = await load([gatewayA.url, gatewayB.url]);
    const restarts = await restartsOf();
    return {
      restarts,
      sessions,
      directMs,
      podsMs,
      workingMs,
      gatewayRssBefore,
      gatewayRssAfter,
      enginesRss,
      list: { p50: listRun.latencyMs.p50, p99: listRun.latencyMs.p99, rps: listRun.requestsPerSecond, non2xx: listRun.non2xx },
      one,
      two,
    };
  } finally {
    for (const stop of stops.reverse()) await stop().catch((error: unknown) => console.error(`scale: stop failed: ${String(error)}`));
    if (process.env.BENCH_KEEP) console.error(`scale: logs kept in ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

interface GatewayProcess {
  readonly pid: number;
  /** The url its "listening" log line names. */
  readonly listening: Promise<string>;
  stop(): Promise<void>;
}

/** A gateway replica as its image runs it, its log (pino JSON lines) in a file of the run's directory. */
function startProcess(options: { label: string; script: string; env: Record<string, string>; logPath: string }): GatewayProcess {
  const log = openSync(options.logPath, 'a');
  // BENCH_SCALE_CPU_PROF=<dir>: each replica writes a V8 CPU profile there when it exits (summarize with cpu-profile.ts).
  const profileDir = process.env.BENCH_SCALE_CPU_PROF;
  const args = profileDir
    ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${options.label}.cpuprofile`, options.script]
    : [options.script];
  const child = spawn(process.execPath, args, { env: options.env, stdio: ['ignore', log, log] });
  closeSync(log);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const listening = (async () => {
    for (let i = 0; i < 600; i++) {
      const text = existsSync(options.logPath) ? readFileSync(options.logPath, 'utf8') : '';
      const url = /"url":"(http:\/\/[^"]+)"[^\n]*listening/.exec(text)?.[1];
      if (url) return url;
      if (child.exitCode !== null) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`${options.label} did not start listening:\n${readFileSync(options.logPath, 'utf8').slice(-3000)}`);
  })();
  return {
    pid: child.pid!,
    listening,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Resolves, once the watch is open, to a promise of when the last of `expected` reported WORKING.
 * The client ends a watch that has been quiet for 30 s: it is opened again (with a list first).
 */
async function watchWorking(
  kubeConfig: KubeConfig,
  expected: readonly string[],
): Promise<{ controller: AbortController; allWorking: Promise<bigint>; missing: () => number }> {
  const missing = new Set(expected);
  let resolveAll!: (at: bigint) => void;
  const allWorking = new Promise<bigint>((resolve) => (resolveAll = resolve));
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const controller = new AbortController();
  const seen = (resource: { metadata?: { name?: string }; status?: { status?: string } }) => {
    if (resource.status?.status !== 'WORKING' || !resource.metadata?.name || !missing.delete(resource.metadata.name)) return;
    if (missing.size === 0) resolveAll(process.hrtime.bigint());
  };
  const watch = async (): Promise<void> => {
    const list = (await custom.listNamespacedCustomObject({ group, version, namespace: NS, plural })) as {
      items: Parameters<typeof seen>[0][];
      metadata?: { resourceVersion?: string };
    };
    for (const item of list.items) seen(item);
    if (controller.signal.aborted || missing.size === 0) return;
    const watching = await new Watch(kubeConfig).watch(
      `/apis/${group}/${version}/namespaces/${NS}/${plural}`,
      { resourceVersion: list.metadata?.resourceVersion },
      (_phase: string, resource: Parameters<typeof seen>[0]) => seen(resource),
      () => {
        if (!controller.signal.aborted && missing.size > 0)
          void watch().catch((error: unknown) => console.error('scale: status watch failed:', error));
      },
    );
    controller.signal.addEventListener('abort', () => watching.abort());
  };
  await watch();
  return { controller, allWorking, missing: () => missing.size };
}

/** Until the gateway lists every session, and (`working`) lists them WORKING. */
async function waitForList(url: string, sessions: number, working = true): Promise<void> {
  let last = '';
  for (let i = 0; i < 600; i++) {
    const res = await fetch(`${url}/api/sessions?all=true`, { headers: { 'x-api-key': API_KEY } });
    const list = (await res.json()) as { status?: string }[];
    if (Array.isArray(list) && (working ? list.filter((s) => s.status === 'WORKING') : list).length >= sessions) return;
    last = `${res.status}: ${Array.isArray(list) ? `${list.filter((s) => s.status === 'WORKING').length} of ${list.length} WORKING` : JSON.stringify(list).slice(0, 500)}`;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`the gateway at ${url} never listed ${sessions} WORKING sessions; last answer ${last}`);
}

/** The sum of the replica's webhook deliveries answered 2xx, from its /metrics. */
async function webhookDeliveries(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`, { headers: { 'x-api-key': API_KEY } })).text();
  let sum = 0;
  for (const line of text.split('\n')) if (line.startsWith('switchboard_webhook_deliveries_succeeded_total')) sum += Number(line.split(' ').at(-1));
  return sum;
}

function rssOf(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? 0) * 1024;
}

function print(results: readonly SizeFigures[]): void {
  const mib = (bytes: number) => bytes / 1024 / 1024;
  const cols = results.map((r) => String(r.sessions));
  const table: [string, (r: SizeFigures) => string, string][] = [
    ['pods created directly (the floor)', (r) => `${(r.directMs / 1000).toFixed(1)} s`, ''],
    ['operator: creates to every pod', (r) => `${(r.podsMs / 1000).toFixed(1)} s`, ''],
    ['reconcile ratio (operator / direct)', (r) => (r.directMs / r.podsMs).toFixed(2), '>= 0.5'],
    ['operator: creates to every status WORKING', (r) => `${(r.workingMs / 1000).toFixed(1)} s`, ''],
    ['gateway RSS with no session', (r) => `${mib(r.gatewayRssBefore).toFixed(0)} MiB`, ''],
    ['gateway RSS with every session WORKING', (r) => `${mib(r.gatewayRssAfter).toFixed(0)} MiB`, ''],
    ['gateway RSS per session', (r) => `${((r.gatewayRssAfter - r.gatewayRssBefore) / r.sessions / 1024).toFixed(0)} KiB`, ''],
    ['load process RSS (every stand-in engine)', (r) => `${mib(r.enginesRss).toFixed(0)} MiB`, ''],
    ['stand-ins restarted (lease lapsed under load)', (r) => String(r.restarts), ''],
    ['GET /api/sessions p50', (r) => `${r.list.p50.toFixed(1)} ms`, ''],
    ['GET /api/sessions p99', (r) => `${r.list.p99.toFixed(1)} ms`, '<= 50 ms'],
  ];
  const loadRows = (label: string, pick: (r: SizeFigures) => LoadFigures): [string, (r: SizeFigures) => string, string][] => [
    [`${label}: messages made (of sent)`, (r) => `${pick(r).made} / ${pick(r).sent}`, ''],
    [`${label}: commands answered ok in 10 s`, (r) => `${pick(r).ok} / ${pick(r).sent}`, ''],
    [`${label}: webhook deliveries/s`, (r) => (pick(r).webhook.unique / pick(r).seconds).toFixed(0), ''],
    [`${label}: webhook p50 / p99 / max`, (r) => latencies(pick(r).webhook), 'p99 <= 100 ms'],
    [`${label}: webhook lost / twice`, (r) => `${pick(r).made - pick(r).webhook.unique} / ${pick(r).webhook.duplicates}`, '0 / 0'],
    [`${label}: /ws p50 / p99 / max`, (r) => latencies(pick(r).ws), 'p99 <= 100 ms'],
    [`${label}: /ws lost / twice (per client)`, (r) => wsLoss(pick(r)), '0 / 0'],
  ];
  const stageRows = (label: string, pick: (r: SizeFigures) => LoadFigures): [string, (r: SizeFigures) => string, string][] =>
    results.some((r) => pick(r).nats)
      ? [[`${label}: plain NATS subscriber p50 / p99 / max`, (r) => (pick(r).nats ? latencies(pick(r).nats!) : '-'), '']]
      : [];
  table.push(...stageRows('1 gateway', (r) => r.one), ...loadRows('1 gateway', (r) => r.one));
  table.push(...stageRows('2 gateways', (r) => r.two), ...loadRows('2 gateways', (r) => r.two));
  table.push(['2 gateways: webhook deliveries per replica', (r) => r.two.perReplica.join(' + '), 'both > 0']);
  const width = Math.max(...table.map(([name]) => name.length));
  const cell = (text: string) => text.padStart(22);
  console.log(`\nsessions${' '.repeat(width - 8)} ${cols.map(cell).join(' ')}   target`);
  for (const [name, value, target] of table) console.log(`${name.padEnd(width)} ${results.map((r) => cell(value(r))).join(' ')}   ${target}`);
  console.log(
    `(load: every session one inbound message a second for ${SECONDS} s, evenly spread, open loop; late p99 of the load's own schedule: ` +
      `${results.map((r) => `${r.one.lateP99Ms.toFixed(0)} / ${r.two.lateP99Ms.toFixed(0)} ms`).join(', ')}; latencies from the envelope timestamp, ms resolution)`,
  );

  const figures: FigureInput[] = [];
  const largest = results.at(-1)!;
  for (const r of results) {
    const at = r.sessions;
    figures.push(
      {
        name: `reconcile ratio, ${at} sessions`,
        value: r.sessions / (r.podsMs / 1000),
        unit: 'sessions/s',
        baseline: r.sessions / (r.directMs / 1000),
        target: { of: 'ratio', atLeast: 0.5 },
        at,
      },
      { name: `creates to every session WORKING, ${at} sessions`, value: r.workingMs / 1000, unit: 's', at },
      { name: `gateway RSS per session, ${at} sessions`, value: (r.gatewayRssAfter - r.gatewayRssBefore) / r.sessions / 1024, unit: 'KiB', at },
      { name: `GET /api/sessions p99, ${at} sessions`, value: r.list.p99, unit: 'ms', target: { of: 'value', atMost: 50 }, at },
      { name: `webhook deliveries/s, ${at} sessions`, value: r.one.webhook.unique / r.one.seconds, unit: '/s', baseline: r.one.sent / SECONDS, at },
      { name: `webhook p99 end to end, ${at} sessions`, value: r.one.webhook.p99, unit: 'ms', target: { of: 'value', atMost: 100 }, at },
      { name: `webhook p50 end to end, ${at} sessions`, value: r.one.webhook.p50, unit: 'ms', at },
      { name: `/ws p99 end to end, ${at} sessions`, value: r.one.ws.p99, unit: 'ms', target: { of: 'value', atMost: 100 }, at },
      { name: `/ws p50 end to end, ${at} sessions`, value: r.one.ws.p50, unit: 'ms', at },
      {
        name: `events lost or twice (webhook + /ws), ${at} sessions`,
        value: r.one.made - r.one.webhook.unique + (r.one.made - r.one.ws.unique) + r.one.webhook.duplicates + r.one.ws.duplicates,
        unit: 'events',
        target: { of: 'value', atMost: 0 },
        at,
      },
      {
        name: `2 replicas: webhook events lost or twice, ${at} sessions`,
        value: r.two.made - r.two.webhook.unique + r.two.webhook.duplicates,
        unit: 'events',
        target: { of: 'value', atMost: 0 },
        at,
      },
      { name: `2 replicas: webhook p99 end to end, ${at} sessions`, value: r.two.webhook.p99, unit: 'ms', target: { of: 'value', atMost: 100 }, at },
    );
  }
  if (largest.one.failed + largest.two.failed > 0)
    console.log(`messages the engines did not make (command failed): ${largest.one.failed} / ${largest.two.failed}`);
  recordResults('scale', figures);
}

const latencies = (d: Delivery) => `${d.p50.toFixed(0)} / ${d.p99.toFixed(0)} / ${d.max.toFixed(0)} ms`;
/** Each /ws client should get every event once: lost and twice are summed over the clients. */
const wsLoss = (load: LoadFigures) => `${load.made * load.ws.perSource.length - load.ws.unique} / ${load.ws.duplicates}`;

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
