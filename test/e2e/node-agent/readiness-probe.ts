import { request } from 'node:http';
import { connect } from 'node:net';

/** A probe resolved to this host: what to check, on which host port. */
export type ProbeCheck =
  | { kind: 'httpGet'; port: number; path: string; headers: Record<string, string> }
  | { kind: 'tcpSocket'; port: number }
  /** exec and grpc probes: the container never becomes ready, and the message says why. */
  | { kind: 'unsupported'; reason: string };

export interface ProbeTiming {
  initialDelayMs: number;
  periodMs: number;
  timeoutMs: number;
  successThreshold: number;
  failureThreshold: number;
}

export interface ProbeResult {
  ready: boolean;
  /** Why the container is not ready, for the pod's condition message. */
  message?: string;
}

/** Runs one container's readiness probe the way kubelet does: consecutive results against thresholds. */
export class ReadinessProbe {
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  #ready = false;
  #successes = 0;
  #failures = 0;

  constructor(
    private readonly check: ProbeCheck,
    private readonly timing: ProbeTiming,
    private readonly onChange: (result: ProbeResult) => void,
  ) {}

  start(): void {
    if (this.check.kind === 'unsupported') {
      this.onChange({ ready: false, message: this.check.reason });
      return;
    }
    this.#schedule(this.timing.initialDelayMs);
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  #schedule(delayMs: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.#probeOnce(), delayMs);
  }

  async #probeOnce(): Promise<void> {
    const failure = await runCheck(this.check, this.timing.timeoutMs);
    if (this.#stopped) return;
    if (failure === undefined) {
      this.#failures = 0;
      this.#successes += 1;
      if (!this.#ready && this.#successes >= this.timing.successThreshold) {
        this.#ready = true;
        this.onChange({ ready: true });
      }
    } else {
      this.#successes = 0;
      this.#failures += 1;
      if (this.#ready && this.#failures >= this.timing.failureThreshold) {
        this.#ready = false;
        this.onChange({ ready: false, message: `Readiness probe failed: ${failure}` });
      }
    }
    this.#schedule(this.timing.periodMs);
  }
}

/** Resolves to undefined on success, or to what went wrong. */
function runCheck(check: ProbeCheck, timeoutMs: number): Promise<string | undefined> {
  switch (check.kind) {
    case 'httpGet':
      return httpCheck(check.port, check.path, check.headers, timeoutMs);
    case 'tcpSocket':
      return tcpCheck(check.port, timeoutMs);
    case 'unsupported':
      return Promise.resolve(check.reason);
  }
}

function httpCheck(port: number, path: string, headers: Record<string, string>, timeoutMs: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    // No keep-alive agent: a probe must not hold a connection open to a process about to be killed.
    const req = request({ host: '127.0.0.1', port, path, headers, agent: false, timeout: timeoutMs }, (res) => {
      res.resume();
      const status = res.statusCode ?? 0;
      // Like kubelet: 200-399 is a success, and redirects are not followed.
      resolve(status >= 200 && status < 400 ? undefined : `HTTP probe failed with statuscode: ${status}`);
    });
    req.on('timeout', () => req.destroy(new Error(`timeout after ${timeoutMs} ms`)));
    req.on('error', (err) => resolve(`Get "http://127.0.0.1:${port}${path}": ${err.message}`));
    req.end();
  });
}

function tcpCheck(port: number, timeoutMs: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, timeout: timeoutMs });
    socket.on('connect', () => {
      socket.destroy();
      resolve(undefined);
    });
    socket.on('timeout', () => socket.destroy(new Error(`timeout after ${timeoutMs} ms`)));
    socket.on('error', (err) => resolve(`dial tcp 127.0.0.1:${port}: ${err.message}`));
  });
}
