import { CoreV1Api, KubeConfig, PatchStrategy, setHeaderOptions, type V1Pod, Watch } from '@kubernetes/client-node';
import { SUBJECTS } from '@switchboard/protocol';
import { connect, type NatsConnection } from 'nats';
import { pino } from 'pino';
import { ENGINE_SELECTOR } from './cluster-bench.js';

/**
 * Child process of `scale.ts`: ONE process standing in for every engine pod of a namespace, and
 * for the kubelet that would run them. The pods are API objects only; for each engine pod the
 * operator creates, this process runs the engine pod's own code (`EnginePod` from
 * engine-pod/dist/pod, SANDBOX engine), which speaks the engine protocol over the real NATS
 * exactly as a pod does: it takes the session lease, answers `sb.cmd.<session>`, publishes its
 * status and events to JetStream and writes history. Then, as a kubelet would once /readyz
 * answers, it reports the pod Running and Ready in the pod's status. Each stand-in has its own
 * NATS connection and health listener, as each pod would; only the process is shared.
 *
 * Once a session asks for a QR code it is paired (`sandbox.simulate` `scan`, over NATS, as the
 * API's simulate route sends it). On `{ type: 'load' }` from the parent, every session receives
 * one inbound message a second (`sandbox.simulate` `message`), evenly spread, for the seconds
 * asked; the reply says how many were sent and answered. Environment: KUBECONFIG,
 * BENCH_NAMESPACE, BENCH_NATS_URL.
 */
const namespace = process.env.BENCH_NAMESPACE!;
const natsUrl = process.env.BENCH_NATS_URL!;
const kubeConfig = new KubeConfig();
kubeConfig.loadFromFile(process.env.KUBECONFIG!);
const core = kubeConfig.makeApiClient(CoreV1Api);
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const log = pino({ level: 'silent' });

/** The parts of engine-pod/src/pod this process uses (imported from the built package by path). */
interface PodConfig {
  readonly session: string;
}
interface EnginePodInstance {
  readonly ready: boolean;
  run(): Promise<number>;
  shutdown(signal: string): Promise<void>;
}
interface PodModules {
  EnginePod: new (config: PodConfig, log: unknown) => EnginePodInstance;
  readPodConfig: (env: NodeJS.ProcessEnv) => PodConfig;
}
const POD_DIST = new URL('../../engine-pod/dist/pod/', import.meta.url);

interface StandIn {
  readonly pod: string;
  readonly session: string;
  readonly engine: EnginePodInstance;
  reportedReady: boolean;
  paired: boolean;
}

async function main(): Promise<void> {
  const { EnginePod } = (await import(new URL('engine-pod.js', POD_DIST).href)) as Pick<PodModules, 'EnginePod'>;
  const { readPodConfig } = (await import(new URL('config.js', POD_DIST).href)) as Pick<PodModules, 'readPodConfig'>;
  // The load's own connection, for the commands a user's API calls would send.
  const nc = await connect({ servers: natsUrl, name: 'bench scale load' });
  const standIns = new Map<string, StandIn>();
  let restarts = 0;

  let stopping = false;
  /** Runs a pod's engine; one that exits is started again after a second, as a kubelet restarts a container (restartPolicy Always). */
  const run = (name: string, config: PodConfig) => {
    const engine = new EnginePod(config, log);
    standIns.set(name, { pod: name, session: config.session, engine, reportedReady: false, paired: false });
    void engine.run().then((code) => {
      if (stopping) return;
      // Under a starved event loop the lease may not be renewed in time: the pod's own code then stops.
      restarts++;
      console.error(`scale engines: the stand-in of ${name} exited (${code}); starting it again`);
      setTimeout(() => run(name, config), 1_000);
    });
  };
  const start = (pod: V1Pod) => {
    const name = pod.metadata!.name!;
    if (standIns.has(name)) return;
    const env: NodeJS.ProcessEnv = { SWITCHBOARD_POD_NAME: name };
    for (const variable of pod.spec?.containers[0]?.env ?? []) if (variable.value !== undefined) env[variable.name] = variable.value;
    Object.assign(env, { SWITCHBOARD_NATS_URL: natsUrl, SWITCHBOARD_HEALTH_PORT: '0', SWITCHBOARD_LOG_LEVEL: 'silent' });
    run(name, readPodConfig(env));
  };

  // The kubelet's side: pods assigned to "this node" are every engine pod of the namespace. The
  // client ends a watch that has been quiet for 30 s; a kubelet lists and watches again.
  const watchPods = async (): Promise<void> => {
    const list = await core.listNamespacedPod({ namespace, labelSelector: ENGINE_SELECTOR });
    for (const pod of list.items) start(pod);
    await new Watch(kubeConfig).watch(
      `/api/v1/namespaces/${namespace}/pods`,
      { labelSelector: ENGINE_SELECTOR, resourceVersion: list.metadata?.resourceVersion },
      (phase: string, pod: V1Pod) => {
        if (phase === 'ADDED') start(pod);
      },
      () => void watchPods().catch((error: unknown) => console.error('scale engines: pod watch failed:', error)),
    );
  };
  await watchPods();

  // Readiness probes, as a kubelet runs them (every 250 ms, like the e2e node agent), and the
  // pairing of sessions that show a QR code.
  const probe = async () => {
    const pending = [...standIns.values()].filter((s) => !s.reportedReady && s.engine.ready);
    await inBatches(pending, 16, async (s) => {
      await core.patchNamespacedPodStatus(
        {
          name: s.pod,
          namespace,
          body: {
            status: {
              phase: 'Running',
              conditions: [
                { type: 'PodScheduled', status: 'True' },
                { type: 'Initialized', status: 'True' },
                { type: 'ContainersReady', status: 'True' },
                { type: 'Ready', status: 'True' },
              ],
            },
          },
        },
        mergePatch,
      );
      s.reportedReady = true;
    });
    const unpaired = [...standIns.values()].filter((s) => s.reportedReady && !s.paired);
    await inBatches(unpaired, 32, async (s) => {
      const reply = await command(nc, s.session, { op: 'sandbox.simulate', args: { kind: 'scan' } });
      // Not yet showing a QR code (still STARTING): asked again at the next probe.
      if (reply.ok) s.paired = true;
    });
    setTimeout(() => void probe().catch((error: unknown) => console.error(`scale engines: probe failed: ${String(error)}`)), 250);
  };
  void probe();

  process.on('message', (message: { type: string; seconds?: number; perSecond?: number }) => {
    if (message.type === 'load') {
      void inboundLoad(
        nc,
        [...standIns.values()].map((s) => s.session),
        message.perSecond ?? 1,
        message.seconds ?? 30,
      ).then((result) => process.send!({ type: 'load', ...result }));
    } else if (message.type === 'stats') {
      const standIn = [...standIns.values()];
      process.send!({
        type: 'stats',
        pods: standIn.length,
        ready: standIn.filter((s) => s.reportedReady).length,
        paired: standIn.filter((s) => s.paired).length,
        restarts,
        rss: process.memoryUsage.rss(),
      });
    } else if (message.type === 'stop') {
      stopping = true;
      void Promise.allSettled([...standIns.values()].map((s) => s.engine.shutdown('SIGTERM'))).then(async () => {
        await nc.drain();
        process.exit(0);
      });
    }
  });
  process.send!({ type: 'up' });
}

interface Reply {
  readonly ok: boolean;
}

async function command(nc: NatsConnection, session: string, body: object): Promise<Reply> {
  try {
    const msg = await nc.request(SUBJECTS.command(session), JSON.stringify(body), { timeout: 10_000 });
    return JSON.parse(msg.string()) as Reply;
  } catch {
    return { ok: false };
  }
}

async function inBatches<T>(items: readonly T[], concurrency: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      await task(item).catch((error: unknown) => console.error(`scale engines: ${String(error)}`));
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

/**
 * Every session receives `perSecond` inbound messages a second for `seconds`: message i of the
 * whole load is due at i / (sessions × perSecond) s, round-robin over the sessions, sent when
 * due whatever the earlier ones' answers (open loop).
 */
async function inboundLoad(
  nc: NatsConnection,
  sessions: readonly string[],
  perSecond: number,
  seconds: number,
): Promise<{ sent: number; ok: number; failed: number; lateP99Ms: number; from: number; to: number }> {
  const rate = sessions.length * perSecond;
  const total = Math.round(rate * seconds);
  let sent = 0;
  let ok = 0;
  let failed = 0;
  const late: number[] = [];
  const from = Date.now();
  const began = performance.now();
  const answers: Promise<void>[] = [];
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now() - began;
      const due = Math.min(total, Math.floor((now * rate) / 1000) + 1);
      while (sent < due) {
        late.push(now - (sent * 1000) / rate);
        const session = sessions[sent % sessions.length]!;
        const body = { op: 'sandbox.simulate', args: { kind: 'message', from: '15557654321@c.us', body: `scale message ${sent}` } };
        answers.push(command(nc, session, body).then((reply) => void (reply.ok ? ok++ : failed++)));
        sent++;
      }
      if (sent < total) setTimeout(tick, Math.max(0, (sent * 1000) / rate - (performance.now() - began)));
      else resolve();
    };
    tick();
  });
  await Promise.all(answers);
  late.sort((a, b) => a - b);
  return { sent, ok, failed, lateP99Ms: late[Math.floor(late.length * 0.99)] ?? 0, from, to: Date.now() };
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
