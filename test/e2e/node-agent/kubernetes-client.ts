/** The Kubernetes client, in one place, so the agent's files share one import. */
export * as k8s from '@kubernetes/client-node';
