import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, closeSync, openSync } from 'node:fs';
import { constants } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ContainerLaunch } from './container-launch.js';
import type { OrphanReaper } from './orphan-reaper.js';
import { ReadinessProbe } from './readiness-probe.js';

export type ContainerState =
  | { waiting: { reason: string; message?: string } }
  | { running: { startedAt: Date } }
  | { terminated: { exitCode: number; signal?: number; reason: string; message?: string; startedAt: Date; finishedAt: Date } };

export interface ContainerSnapshot {
  name: string;
  image: string;
  state: ContainerState;
  lastState: ContainerState | undefined;
  ready: boolean;
  /** Why the container is not ready, when a probe said so. */
  notReadyMessage: string | undefined;
  restartCount: number;
  pid: number | undefined;
  logPath: string;
}

export interface RestartBackoff {
  initialMs: number;
  maxMs: number;
}

export type RestartPolicy = 'Always' | 'OnFailure' | 'Never';

/**
 * One container: one local process at a time, restarted by the pod's restart policy with an
 * exponential backoff, its readiness followed by its probe. The process gets its own process
 * group (as a container gets its own PID namespace), so stopping it stops whatever it spawned.
 */
export class ContainerProcess {
  #state: ContainerState = { waiting: { reason: 'ContainerCreating' } };
  #lastState: ContainerState | undefined;
  #ready = false;
  #notReadyMessage: string | undefined;
  #restartCount = 0;
  #child: { process: ChildProcess; pid: number; exited: Promise<void> } | undefined;
  #probe: ReadinessProbe | undefined;
  #restartTimer: NodeJS.Timeout | undefined;
  #terminating = false;

  constructor(
    readonly name: string,
    private readonly image: string,
    private readonly logPath: string,
    private readonly restartPolicy: RestartPolicy,
    private readonly backoff: RestartBackoff,
    private readonly reaper: OrphanReaper,
    private readonly onChange: () => void,
  ) {}

  /** The container will not start: the pod shows why, as kubelet shows ErrImagePull. */
  fail(reason: string, message: string): void {
    this.#state = { waiting: { reason, message } };
    this.#note(`not started: ${reason}: ${message}`);
    this.onChange();
  }

  start(launch: ContainerLaunch, podDir: string): void {
    if (this.#terminating) return;
    const log = openSync(this.logPath, 'a');
    const line = `${launch.command} ${launch.args.join(' ')}`;
    const child = spawn(launch.command, launch.args, {
      cwd: launch.cwd ?? podDir,
      env: launch.env,
      stdio: ['ignore', log, log],
      detached: true,
    });
    closeSync(log);
    const startedAt = new Date();
    const exited = new Promise<void>((resolve) => {
      let done = false;
      const finish = (exitCode: number, signal: NodeJS.Signals | null, message?: string) => {
        if (done) return;
        done = true;
        this.#exited(launch, podDir, { exitCode, signal, message, startedAt });
        resolve();
      };
      child.once('exit', (code, signal) => finish(code ?? 128 + (signal ? constants.signals[signal] : 0), signal));
      // kubelet's StartError: the command could not be run at all (not found, not executable).
      child.once('error', (err) => finish(128, null, `StartError: ${err.message}`));
    });
    if (child.pid === undefined) return;
    this.#child = { process: child, pid: child.pid, exited };
    this.reaper.watch(child.pid);
    this.#note(`started pid ${child.pid} (restart ${this.#restartCount}): ${line}`);
    this.#state = { running: { startedAt } };
    if (launch.readiness) {
      this.#probe = new ReadinessProbe(launch.readiness.check, launch.readiness.timing, (result) => {
        this.#ready = result.ready;
        this.#notReadyMessage = result.message;
        this.onChange();
      });
      this.#probe.start();
    } else {
      this.#ready = true;
    }
    this.onChange();
  }

  /**
   * SIGTERM to the container's main process, as the kubelet's runtime sends it to PID 1 only (a
   * browser engine's Chromium is the engine's to close, saving its profile), then SIGKILL to
   * every process left once `graceMs` has passed or the main process is gone, as a container's
   * end takes its processes with it; no restart afterwards.
   */
  async terminate(graceMs: number): Promise<void> {
    this.#terminating = true;
    clearTimeout(this.#restartTimer);
    const child = this.#child;
    if (!child) return;
    this.#note(`stopping pid ${child.pid}: SIGTERM, SIGKILL after ${graceMs} ms`);
    if (graceMs > 0) signalProcess(child.pid, 'SIGTERM');
    else signalGroup(child.pid, 'SIGKILL');
    const timer = new AbortController();
    const graceOver = sleep(graceMs, undefined, { signal: timer.signal }).then(
      () => signalGroup(child.pid, 'SIGKILL'),
      () => undefined,
    );
    await child.exited;
    timer.abort();
    await graceOver;
    signalGroup(child.pid, 'SIGKILL');
  }

  /** The container ran and will not run again. */
  get finished(): boolean {
    return 'terminated' in this.#state;
  }

  snapshot(): ContainerSnapshot {
    return {
      name: this.name,
      image: this.image,
      state: this.#state,
      lastState: this.#lastState,
      ready: this.#ready,
      notReadyMessage: this.#notReadyMessage,
      restartCount: this.#restartCount,
      pid: this.#child?.pid,
      logPath: this.logPath,
    };
  }

  #exited(
    launch: ContainerLaunch,
    podDir: string,
    exit: { exitCode: number; signal: NodeJS.Signals | null; message: string | undefined; startedAt: Date },
  ): void {
    const pid = this.#child?.pid;
    this.#child = undefined;
    if (pid !== undefined) {
      // The main process is gone; whatever it spawned goes with it, as in a container.
      signalGroup(pid, 'SIGKILL');
      this.reaper.forget(pid);
    }
    this.#probe?.stop();
    this.#probe = undefined;
    this.#ready = false;
    this.#notReadyMessage = undefined;
    this.#note(
      `pid ${pid ?? '-'} exited with code ${exit.exitCode}${exit.signal ? ` (${exit.signal})` : ''}${exit.message ? `: ${exit.message}` : ''}`,
    );
    const terminated: ContainerState = {
      terminated: {
        exitCode: exit.exitCode,
        ...(exit.signal ? { signal: constants.signals[exit.signal] } : {}),
        reason: exit.message ? 'StartError' : exit.exitCode === 0 ? 'Completed' : 'Error',
        ...(exit.message ? { message: exit.message } : {}),
        startedAt: exit.startedAt,
        finishedAt: new Date(),
      },
    };
    const restart = !this.#terminating && (this.restartPolicy === 'Always' || (this.restartPolicy === 'OnFailure' && exit.exitCode !== 0));
    if (!restart) {
      this.#state = terminated;
      this.onChange();
      return;
    }
    this.#lastState = terminated;
    const delayMs = Math.min(this.backoff.initialMs * 2 ** this.#restartCount, this.backoff.maxMs);
    this.#state = { waiting: { reason: 'CrashLoopBackOff', message: `back-off ${delayMs} ms restarting failed container ${this.name}` } };
    this.onChange();
    this.#restartTimer = setTimeout(() => {
      this.#restartCount += 1;
      this.start(launch, podDir);
    }, delayMs);
  }

  /** Agent notes go into the container's log, between its own lines, to read a failure in order. */
  #note(text: string): void {
    appendFileSync(this.logPath, `--- node-agent ${new Date().toISOString()} ${text}\n`);
  }
}

function signalProcess(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone.
  }
}

function signalGroup(group: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-group, signal);
  } catch {
    // The group is already gone.
  }
}
