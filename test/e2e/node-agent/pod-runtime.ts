import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CoreV1Api, V1Pod } from '@kubernetes/client-node';
import { type ConfigSource, type ImageCommand, LaunchError, resolveLaunch } from './container-launch.js';
import { ContainerProcess, type ContainerSnapshot, type RestartBackoff, type RestartPolicy } from './container-process.js';
import { isStatus, mergePatch } from './kube-calls.js';
import type { OrphanReaper } from './orphan-reaper.js';
import { PodPorts } from './pod-ports.js';
import { PodStatusBuilder } from './pod-status.js';

export interface PodRuntimeDeps {
  core: CoreV1Api;
  config: ConfigSource;
  reaper: OrphanReaper;
  nodeName: string;
  workDir: string;
  images: Record<string, ImageCommand>;
  envOverrides: Record<string, string>;
  probePeriodMs: number;
  restartBackoff: RestartBackoff;
  log: (line: string) => void;
}

/** How often a container whose env refers to a missing ConfigMap or Secret tries again. */
const CONFIG_RETRY_MS = 2_000;

/**
 * One pod bound to this node: its containers as local processes, and its status, written to the
 * pod's status subresource whenever something a reader could see has changed.
 */
export class PodRuntime {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  /** `<workDir>/<namespace>_<name>_<uid>`: the containers' logs, and their working directory. */
  readonly dir: string;
  readonly ports = new PodPorts();
  readonly containers: ContainerProcess[];
  readonly #status = new PodStatusBuilder(new Date());
  #written = '';
  #writing: Promise<void> | undefined;
  #dirty = false;
  /** Set by the agent's stop: the API server may be going away, so nothing more is written. */
  #silent = false;
  #terminating: Promise<void> | undefined;

  constructor(
    private readonly pod: V1Pod,
    private readonly deps: PodRuntimeDeps,
  ) {
    this.namespace = pod.metadata?.namespace ?? 'default';
    this.name = pod.metadata?.name ?? '';
    this.uid = pod.metadata?.uid ?? '';
    this.dir = join(deps.workDir, `${this.namespace}_${this.name}_${this.uid}`);
    mkdirSync(this.dir, { recursive: true });
    const policy = (pod.spec?.restartPolicy ?? 'Always') as RestartPolicy;
    this.containers = (pod.spec?.containers ?? []).map(
      (container) =>
        new ContainerProcess(
          container.name,
          container.image ?? '',
          join(this.dir, `${container.name}.log`),
          policy,
          deps.restartBackoff,
          deps.reaper,
          () => this.#statusChanged(),
        ),
    );
  }

  get key(): string {
    return `${this.namespace}/${this.name}`;
  }

  /** Starts every container; a container whose env cannot be resolved yet waits and retries. */
  start(): void {
    this.#statusChanged();
    const specs = this.pod.spec?.containers ?? [];
    this.containers.forEach((container, index) => void this.#startContainer(container, specs[index]!));
  }

  /** Every container stopped (SIGTERM, then SIGKILL after `graceMs`) and the final status written. */
  terminate(graceMs: number): Promise<void> {
    this.#terminating ??= (async () => {
      this.deps.log(`${this.key}: stopping its containers (grace ${graceMs} ms)`);
      await Promise.all(this.containers.map((container) => container.terminate(graceMs)));
      await this.#flush();
    })();
    return this.#terminating;
  }

  /** For the agent's stop: SIGKILL everything and write nothing more. */
  async kill(): Promise<void> {
    this.#silent = true;
    await Promise.all(this.containers.map((container) => container.terminate(0)));
  }

  /** Every container has run and none will run again. */
  get finished(): boolean {
    return this.containers.every((container) => container.finished);
  }

  snapshots(): ContainerSnapshot[] {
    return this.containers.map((container) => container.snapshot());
  }

  async #startContainer(container: ContainerProcess, spec: NonNullable<V1Pod['spec']>['containers'][number]): Promise<void> {
    for (;;) {
      if (this.#terminating) return;
      try {
        const launch = await resolveLaunch(this.pod, spec, { ...this.deps, ports: this.ports });
        container.start(launch, this.dir);
        return;
      } catch (err) {
        // Anything but an unknown image (a missing Secret, a failed read) may resolve itself.
        const reason = err instanceof LaunchError ? err.reason : 'CreateContainerConfigError';
        const message = err instanceof Error ? err.message : String(err);
        container.fail(reason, message);
        this.deps.log(`${this.key}: container ${container.name} cannot start: ${message}`);
        if (reason === 'ErrImagePull') return;
        await sleep(CONFIG_RETRY_MS);
      }
    }
  }

  #statusChanged(): void {
    if (this.#silent) return;
    this.#dirty = true;
    this.#writing ??= this.#writeWhileDirty().finally(() => (this.#writing = undefined));
  }

  async #flush(): Promise<void> {
    this.#statusChanged();
    await this.#writing;
  }

  /** One write at a time, always of the latest state, and none when nothing changed. */
  async #writeWhileDirty(): Promise<void> {
    while (this.#dirty && !this.#silent) {
      this.#dirty = false;
      const status = this.#status.build(this.snapshots());
      const body = JSON.stringify(status);
      if (body === this.#written) continue;
      try {
        await this.deps.core.patchNamespacedPodStatus({ name: this.name, namespace: this.namespace, body: { status } }, mergePatch);
        this.#written = body;
      } catch (err) {
        if (isStatus(err, 404)) return;
        this.deps.log(`${this.key}: writing its status failed, retrying: ${String(err)}`);
        this.#dirty = true;
        await sleep(1_000);
      }
    }
  }
}
