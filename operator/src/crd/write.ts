import { writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { messagingSessionCrd } from './messaging-session-crd.js';

/** Writes the generated CRD to each path given (crds/ and the chart's copy). */
export function crdYaml(): string {
  return `# Generated from protocol/ by operator/src/crd/write.ts: do not edit by hand.\n${stringify(messagingSessionCrd(), { lineWidth: 0, aliasDuplicateObjects: false })}`;
}

for (const path of process.argv.slice(2)) writeFileSync(path, crdYaml());
