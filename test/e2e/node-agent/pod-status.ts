import { HOST_IP, POD_IP } from './container-launch.js';
import type { ContainerSnapshot, ContainerState } from './container-process.js';

type ConditionStatus = 'True' | 'False';

/**
 * Builds the pod's `status` the way kubelet reports it: phase from the containers' states,
 * the four standard conditions (a condition keeps its lastTransitionTime until its status
 * changes), and one containerStatus per container.
 */
export class PodStatusBuilder {
  readonly #transitions = new Map<string, { status: ConditionStatus; at: Date }>();

  constructor(private readonly startTime: Date) {}

  build(containers: ContainerSnapshot[]): Record<string, unknown> {
    const phase = podPhase(containers);
    const unready = containers.filter((container) => !container.ready).map((container) => container.name);
    const finished = phase === 'Succeeded' || phase === 'Failed';
    const readiness = finished
      ? { status: 'False' as const, reason: 'PodCompleted', message: '' }
      : unready.length > 0
        ? { status: 'False' as const, reason: 'ContainersNotReady', message: notReadyMessage(containers, unready) }
        : { status: 'True' as const, reason: '', message: '' };
    return {
      phase,
      conditions: [
        this.#condition('PodScheduled', 'True'),
        this.#condition('Initialized', 'True'),
        this.#condition('ContainersReady', readiness.status, readiness.reason, readiness.message),
        this.#condition('Ready', readiness.status, readiness.reason, readiness.message),
      ],
      hostIP: HOST_IP,
      hostIPs: [{ ip: HOST_IP }],
      podIP: POD_IP,
      podIPs: [{ ip: POD_IP }],
      startTime: apiTime(this.startTime),
      containerStatuses: containers.map(containerStatus),
    };
  }

  #condition(type: string, status: ConditionStatus, reason = '', message = ''): Record<string, unknown> {
    let transition = this.#transitions.get(type);
    if (transition?.status !== status) {
      transition = { status, at: new Date() };
      this.#transitions.set(type, transition);
    }
    return {
      type,
      status,
      lastProbeTime: null,
      lastTransitionTime: apiTime(transition.at),
      ...(reason ? { reason } : {}),
      ...(message ? { message } : {}),
    };
  }
}

/** kubelet's rule: Pending until every container has run once; terminal once none will run again. */
function podPhase(containers: ContainerSnapshot[]): 'Pending' | 'Running' | 'Succeeded' | 'Failed' {
  const exitCodes = containers.map((container) => ('terminated' in container.state ? container.state.terminated.exitCode : undefined));
  if (exitCodes.every((code) => code !== undefined)) return exitCodes.every((code) => code === 0) ? 'Succeeded' : 'Failed';
  const everStarted = containers.every((container) => !('waiting' in container.state) || container.lastState !== undefined);
  return everStarted ? 'Running' : 'Pending';
}

function notReadyMessage(containers: ContainerSnapshot[], unready: string[]): string {
  const why = containers.flatMap((container) => (container.notReadyMessage ? [`${container.name}: ${container.notReadyMessage}`] : []));
  return [`containers with unready status: [${unready.join(' ')}]`, ...why].join('; ');
}

function containerStatus(container: ContainerSnapshot): Record<string, unknown> {
  return {
    name: container.name,
    image: container.image,
    imageID: `node-agent://${container.image}`,
    ...(container.pid !== undefined ? { containerID: `node-agent://${container.pid}` } : {}),
    ready: container.ready,
    started: 'running' in container.state,
    restartCount: container.restartCount,
    state: apiState(container.state),
    lastState: container.lastState ? apiState(container.lastState) : {},
  };
}

function apiState(state: ContainerState): Record<string, unknown> {
  if ('waiting' in state) return { waiting: state.waiting };
  if ('running' in state) return { running: { startedAt: apiTime(state.running.startedAt) } };
  const { startedAt, finishedAt, ...rest } = state.terminated;
  return { terminated: { ...rest, startedAt: apiTime(startedAt), finishedAt: apiTime(finishedAt) } };
}

/** metav1.Time: RFC 3339 at whole seconds, as the API server stores it. */
export function apiTime(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
