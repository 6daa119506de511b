import type { V1Pod } from '@kubernetes/client-node';
import type { StoredMessagingSession } from '@switchboard/kube';
import type { EnginePodSettings } from '../src/config.js';

export const settings: EnginePodSettings = {
  natsUrl: 'nats://nats:4222',
  engineImage: 'ghcr.io/switchboard/engine:1',
  browserEngineImage: 'ghcr.io/switchboard/engine-browser:1',
  resources: {
    SANDBOX: { requests: { cpu: '10m', memory: '64Mi' }, limits: { memory: '128Mi' } },
    NOWEB: { requests: { cpu: '50m', memory: '96Mi' }, limits: { memory: '256Mi' } },
    WEBJS: { requests: { cpu: '250m', memory: '512Mi' }, limits: { memory: '1536Mi' } },
    GOWS: { requests: { cpu: '20m', memory: '64Mi' }, limits: { memory: '192Mi' } },
    WPP: { requests: { cpu: '250m', memory: '512Mi' }, limits: { memory: '1536Mi' } },
  },
};

export function sessionResource(
  overrides: {
    name?: string;
    spec?: Record<string, unknown>;
    annotations?: Record<string, string>;
  } = {},
): StoredMessagingSession {
  const name = overrides.name ?? 's1';
  return {
    apiVersion: 'switchboard.dev/v1alpha1',
    kind: 'MessagingSession',
    metadata: { name, namespace: 'ns1', uid: 'uid-1', generation: 1, resourceVersion: '10', annotations: overrides.annotations },
    spec: { engine: 'SANDBOX', desiredState: 'Running', config: {}, apps: [], ...overrides.spec },
  };
}

/** An engine pod as the informer sees it, in the phase and readiness a test needs. */
export function enginePod(
  state: {
    phase?: string;
    ready?: boolean;
    terminating?: boolean;
    waitingReason?: string;
    name?: string;
    /** The engine container's image; unset: a pod with no spec, as most tests need none. */
    image?: string;
  } = {},
): V1Pod {
  return {
    metadata: {
      name: state.name ?? 'engine-s1',
      uid: 'pod-uid-1',
      ...(state.terminating ? { deletionTimestamp: '2026-11-21T10:00:00Z' as unknown as Date } : {}),
    },
    ...(state.image ? { spec: { containers: [{ name: 'engine', image: state.image }] } } : {}),
    status: {
      phase: state.phase ?? 'Running',
      conditions: [{ type: 'Ready', status: state.ready ? 'True' : 'False' }],
      containerStatuses: state.waitingReason
        ? [{ name: 'engine', image: 'x', imageID: '', ready: false, restartCount: 5, state: { waiting: { reason: state.waitingReason } } }]
        : [],
    },
  };
}
