import {
  CONDITION_TYPES,
  MESSAGING_SESSION,
  MessagingSessionSpec,
  MessagingSessionStatus,
  RESOURCE_NAME_MAX,
  RESOURCE_NAME_PATTERNS,
} from '@switchboard/protocol';
import { structuralSchema } from './structural-schema.js';

/**
 * The MessagingSession CRD, generated from the protocol's zod schemas so the resource cannot
 * drift from what the API accepts. `crds/messagingsession.yaml` is this object written out
 * (`pnpm --filter @switchboard/operator gen:crd`), and a test keeps the two equal.
 */
export function messagingSessionCrd(): Record<string, unknown> {
  const { group, version, kind, plural, singular, shortName } = MESSAGING_SESSION;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { kind, plural, singular, shortNames: [shortName], listKind: `${kind}List`, categories: ['switchboard'] },
      versions: [
        {
          name: version,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [
            { name: 'Status', type: 'string', jsonPath: '.status.status' },
            { name: 'Ready', type: 'string', jsonPath: `.status.conditions[?(@.type=="${CONDITION_TYPES.ready}")].status` },
            { name: 'Engine', type: 'string', jsonPath: '.spec.engine' },
            { name: 'Account', type: 'string', jsonPath: '.status.me.id' },
            { name: 'Desired', type: 'string', jsonPath: '.spec.desiredState', priority: 1 },
            { name: 'Pod', type: 'string', jsonPath: '.status.podName', priority: 1 },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
          schema: {
            openAPIV3Schema: {
              type: 'object',
              description: 'One session: one connection to one messaging account, run by one engine pod.',
              properties: {
                apiVersion: { type: 'string' },
                kind: { type: 'string' },
                metadata: { type: 'object' },
                spec: structuralSchema(MessagingSessionSpec),
                status: structuralSchema(MessagingSessionStatus),
              },
              required: ['spec'],
              'x-kubernetes-validations': [RESOURCE_NAME_RULE, SESSION_NAME_RULE, SESSION_NAME_FIXED_RULE],
            },
          },
        },
      ],
    },
  };
}

/**
 * The resource's own name, as `resourceNameProblem` checks it, when the resource is created
 * (`optionalOldSelf`: an update passes, so a resource made before the rule can still be updated
 * and deleted; the operator refuses it instead). Names cannot change, so this is checking always.
 */
const RESOURCE_NAME_RULE = {
  rule: `oldSelf.hasValue() || (size(self.metadata.name) <= ${RESOURCE_NAME_MAX} && (has(self.spec.session) || !self.metadata.name.contains('.')))`,
  optionalOldSelf: true,
  message: `metadata.name must be at most ${RESOURCE_NAME_MAX} characters, and contain no "." unless spec.session names the session`,
};

/**
 * `spec.session` names this resource's own session, never another's: the session name decides
 * the engine pod's NATS credentials and what a deletion drops. CEL has no hash, so a session name
 * Kubernetes can hold must be the resource's name, and any other needs a hashed name
 * (`resourceNameFor`); the operator checks the hash itself (`sessionNameProblem`). On creation
 * only, like the rule above, so a resource made before it can still be updated and deleted.
 */
const SESSION_NAME_RULE = {
  rule:
    'oldSelf.hasValue() || !has(self.spec.session) || self.spec.session == self.metadata.name || ' +
    `(!self.spec.session.matches('${RESOURCE_NAME_PATTERNS.sameAsSession}') && self.metadata.name.matches('${RESOURCE_NAME_PATTERNS.hashed}'))`,
  optionalOldSelf: true,
  message:
    'spec.session must be this resource\'s own session: equal to metadata.name, or for a session name that is no object name (upper case, "_") the hashed name the API gives it; leave spec.session out to use metadata.name',
  fieldPath: '.spec.session',
};

/** Nor can an update make a resource speak for another session. */
const SESSION_NAME_FIXED_RULE = {
  rule: '!oldSelf.hasValue() || (has(self.spec.session) ? has(oldSelf.value().spec.session) && self.spec.session == oldSelf.value().spec.session : !has(oldSelf.value().spec.session))',
  optionalOldSelf: true,
  message: 'spec.session cannot be changed',
  fieldPath: '.spec.session',
};
