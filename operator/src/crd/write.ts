import { writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { messagingSessionCrd } from './messaging-session-crd.js';

/** Writes the generated CRD to the path given (crds/messagingsession.yaml). */
export function crdYaml(): string {
  return `# Generated from protocol/ by operator/src/crd/write.ts: do not edit by hand.\n${stringify(messagingSessionCrd(), { lineWidth: 0, aliasDuplicateObjects: false })}`;
}

if (process.argv[2]) writeFileSync(process.argv[2], crdYaml());
