import type { V1ConfigMap } from '@kubernetes/client-node';
import { type BuiltEngine, isBuiltEngine, LABELS } from '@switchboard/protocol';
import type { KubeClient } from '../kube-client.js';
import type { RolloutState } from './rollout-state.js';

/**
 * Each engine's rollout is a ConfigMap of the namespace, `switchboard-rollout-<engine>`, its state
 * as JSON under `rollout`: it outlives the operator (a version change is an operator restart),
 * `kubectl get cm -l app.kubernetes.io/component=rollout` finds them, and deleting one restarts
 * that engine's rollout from its canary (how a halted one is resumed without a version change).
 * A ConfigMap holds 1 MiB: about 5000 sessions of one engine in one rollout.
 */
export const ROLLOUT_COMPONENT = 'rollout';
export const ROLLOUT_KEY = 'rollout';
export const ROLLOUT_ENGINE_LABEL = 'switchboard.dev/engine';
export const ROLLOUT_SELECTOR = `${LABELS.app}=switchboard,${LABELS.component}=${ROLLOUT_COMPONENT}`;

export function rolloutConfigMapName(engine: BuiltEngine): string {
  return `switchboard-rollout-${engine.toLowerCase()}`;
}

export interface StoredRollout {
  readonly state: RolloutState;
  /** The ConfigMap's resourceVersion: the next write replaces exactly this one. */
  readonly resourceVersion: string;
}

export class RolloutStore {
  constructor(private readonly kube: KubeClient) {}

  /** Every engine's stored rollout; one that cannot be read is left out (and rewritten by the next plan). */
  async readAll(): Promise<Map<BuiltEngine, StoredRollout>> {
    const stored = new Map<BuiltEngine, StoredRollout>();
    for (const configMap of await this.kube.listConfigMaps(ROLLOUT_SELECTOR)) {
      const engine = configMap.metadata?.labels?.[ROLLOUT_ENGINE_LABEL];
      const text = configMap.data?.[ROLLOUT_KEY];
      if (!engine || !isBuiltEngine(engine) || !text || configMap.metadata?.name !== rolloutConfigMapName(engine)) continue;
      try {
        stored.set(engine, { state: JSON.parse(text) as RolloutState, resourceVersion: configMap.metadata.resourceVersion ?? '' });
      } catch {
        continue;
      }
    }
    return stored;
  }

  /** Writes a rollout over the one read (none: creates it); a ConflictError when it changed meanwhile. */
  async write(state: RolloutState, read: StoredRollout | undefined): Promise<StoredRollout> {
    const configMap: V1ConfigMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: rolloutConfigMapName(state.engine),
        labels: { [LABELS.app]: 'switchboard', [LABELS.component]: ROLLOUT_COMPONENT, [ROLLOUT_ENGINE_LABEL]: state.engine },
        ...(read ? { resourceVersion: read.resourceVersion } : {}),
      },
      data: { [ROLLOUT_KEY]: JSON.stringify(state, null, 1) },
    };
    const written = await this.kube.writeConfigMap(configMap);
    return { state, resourceVersion: written.metadata?.resourceVersion ?? '' };
  }
}
