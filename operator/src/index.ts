/**
 * The operator reconciles MessagingSession custom resources into engine pods. Cluster mode is
 * built in a later step; until then this package holds the resource's identity, which the CRD,
 * the gateway's cluster backend and the operator all share.
 */
export const MESSAGING_SESSION = {
  group: 'switchboard.dev',
  version: 'v1alpha1',
  kind: 'MessagingSession',
  plural: 'messagingsessions',
  shortName: 'msess',
} as const;
