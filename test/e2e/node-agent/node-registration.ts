import { arch, availableParallelism, release, totalmem } from 'node:os';
import type { CoordinationV1Api, CoreV1Api } from '@kubernetes/client-node';
import { HOST_IP } from './container-launch.js';
import { isStatus, mergePatch } from './kube-calls.js';
import { apiTime } from './pod-status.js';

const LEASE_NAMESPACE = 'kube-node-lease';
const LEASE_DURATION_SECONDS = 40;
const NOT_READY_TAINT = 'node.kubernetes.io/not-ready';

/** The labels a scheduler matches `nodeSelector` against. */
export function nodeLabels(nodeName: string): Record<string, string> {
  return {
    'kubernetes.io/hostname': nodeName,
    'kubernetes.io/os': 'linux',
    'kubernetes.io/arch': process.arch === 'x64' ? 'amd64' : arch(),
  };
}

/**
 * The Node object, kept Ready the way kubelet does it: the Ready condition's heartbeat in the
 * status subresource, and a Lease in kube-node-lease renewed on the same beat.
 */
export class NodeRegistration {
  readonly #readySince = new Date();
  #timer: NodeJS.Timeout | undefined;
  #leaseNamespaceMissing = false;

  constructor(
    private readonly core: CoreV1Api,
    private readonly coordination: CoordinationV1Api,
    private readonly nodeName: string,
    private readonly log: (line: string) => void,
  ) {}

  /** Registers the node (or takes over one left by an earlier run), marks it Ready, and keeps it so. */
  async start(heartbeatMs: number): Promise<void> {
    await this.#register();
    await this.#heartbeat();
    await this.#clearNotReadyTaint();
    this.#timer = setInterval(() => {
      this.#heartbeat().catch((err: unknown) => this.log(`node ${this.nodeName}: heartbeat failed: ${String(err)}`));
    }, heartbeatMs);
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  async #register(): Promise<void> {
    const labels = nodeLabels(this.nodeName);
    try {
      await this.core.createNode({ body: { apiVersion: 'v1', kind: 'Node', metadata: { name: this.nodeName, labels } } });
      this.log(`node ${this.nodeName}: registered`);
    } catch (err) {
      if (!isStatus(err, 409)) throw err;
      await this.core.patchNode({ name: this.nodeName, body: { metadata: { labels }, spec: { unschedulable: false } } }, mergePatch);
      this.log(`node ${this.nodeName}: already registered, taken over`);
    }
  }

  async #heartbeat(): Promise<void> {
    try {
      await this.core.patchNodeStatus({ name: this.nodeName, body: { status: this.#nodeStatus() } }, mergePatch);
    } catch (err) {
      // Someone deleted the Node: register again, as kubelet does.
      if (!isStatus(err, 404)) throw err;
      await this.#register();
      await this.core.patchNodeStatus({ name: this.nodeName, body: { status: this.#nodeStatus() } }, mergePatch);
    }
    await this.#renewLease();
  }

  /**
   * The API server's TaintNodesByCondition admission taints a new Node not-ready; the node
   * lifecycle controller, which this control plane does not run, lifts it once the node is Ready.
   */
  async #clearNotReadyTaint(): Promise<void> {
    const node = await this.core.readNode({ name: this.nodeName });
    const taints = node.spec?.taints ?? [];
    const kept = taints.filter((taint) => taint.key !== NOT_READY_TAINT);
    if (kept.length === taints.length) return;
    await this.core.patchNode({ name: this.nodeName, body: { spec: { taints: kept } } }, mergePatch);
  }

  #nodeStatus(): Record<string, unknown> {
    const now = apiTime(new Date());
    const since = apiTime(this.#readySince);
    const condition = (type: string, status: string, reason: string, message: string) => ({
      type,
      status,
      reason,
      message,
      lastHeartbeatTime: now,
      lastTransitionTime: since,
    });
    const resources = { cpu: String(availableParallelism()), memory: `${Math.floor(totalmem() / 1024)}Ki`, pods: '110' };
    return {
      conditions: [
        condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'node agent has sufficient memory available'),
        condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'node agent has no disk pressure'),
        condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'node agent has sufficient PID available'),
        condition('Ready', 'True', 'KubeletReady', 'node agent is posting ready status'),
      ],
      addresses: [
        { type: 'InternalIP', address: HOST_IP },
        { type: 'Hostname', address: this.nodeName },
      ],
      capacity: resources,
      allocatable: resources,
      nodeInfo: {
        machineID: '',
        systemUUID: '',
        bootID: '',
        kernelVersion: release(),
        osImage: 'Switchboard test node agent',
        containerRuntimeVersion: `node-agent://${process.version}`,
        kubeletVersion: 'v0.0.0-node-agent',
        kubeProxyVersion: '',
        operatingSystem: 'linux',
        architecture: nodeLabels(this.nodeName)['kubernetes.io/arch'],
      },
    };
  }

  async #renewLease(): Promise<void> {
    if (this.#leaseNamespaceMissing) return;
    // MicroTime wants exactly six fractional digits; the client would send a Date's three.
    const renewTime = new Date().toISOString().replace(/Z$/, '000Z') as unknown as Date;
    const spec = { holderIdentity: this.nodeName, leaseDurationSeconds: LEASE_DURATION_SECONDS, renewTime };
    try {
      await this.coordination.patchNamespacedLease({ name: this.nodeName, namespace: LEASE_NAMESPACE, body: { spec } }, mergePatch);
    } catch (err) {
      if (!isStatus(err, 404)) throw err;
      try {
        await this.coordination.createNamespacedLease({
          namespace: LEASE_NAMESPACE,
          body: { metadata: { name: this.nodeName, namespace: LEASE_NAMESPACE }, spec },
        });
      } catch (createErr) {
        // An API server without kube-node-lease: the Ready condition alone carries the heartbeat.
        if (!isStatus(createErr, 404)) throw createErr;
        this.#leaseNamespaceMissing = true;
        this.log(`node ${this.nodeName}: no ${LEASE_NAMESPACE} namespace, so no node lease`);
      }
    }
  }
}
