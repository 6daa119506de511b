import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startGateway, type TestGateway, workingSession } from '../../gateway/test/support/gateway.js';

/**
 * `kubectl switchboard`: the plugin script with a stand-in kubectl on PATH that answers as kubectl
 * does for the three calls it makes (find the gateway Service, read the admin key's Secret, port-
 * forward) and "forwards" to a real local gateway. What the plugin asked kubectl is logged and checked.
 */
const PLUGIN = fileURLToPath(new URL('../../cli/bin/kubectl-switchboard', import.meta.url));
const FAKE_KUBECTL = `#!/usr/bin/env bash
echo "$*" >> "$FAKE_KUBECTL_LOG"
case "$1 $2" in
  "get service") printf 'sb-switchboard-gateway' ;;
  "get secret") printf '%s' "$FAKE_API_KEY" | base64 ;;
  "get configmap") cat "$FAKE_ROLLOUTS" ;;
  port-forward*) echo "Forwarding from 127.0.0.1:$FAKE_PORT -> 3000"; exec sleep 600 ;;
  *) echo "unexpected kubectl $*" >&2; exit 1 ;;
esac
`;

let gw: TestGateway;
let bin: string;
beforeAll(async () => {
  gw = await startGateway();
  await workingSession(gw, 'kube');
  bin = mkdtempSync(join(tmpdir(), 'fake-kubectl-'));
  writeFileSync(join(bin, 'kubectl'), FAKE_KUBECTL);
  chmodSync(join(bin, 'kubectl'), 0o755);
});
afterAll(() => gw?.close());

/** The ConfigMap list kubectl answers `get configmap -l …rollout -o json` with, as the operator writes them. */
function rolloutList(...rollouts: object[]): string {
  return JSON.stringify({
    kind: 'List',
    items: rollouts.map((rollout) => ({
      metadata: { name: `switchboard-rollout-${String((rollout as { engine: string }).engine).toLowerCase()}` },
      data: { rollout: JSON.stringify(rollout) },
    })),
  });
}

function plugin(args: string[], rollouts = rolloutList()): Promise<{ code: number | null; output: string; kubectl: string[] }> {
  const log = join(bin, `calls-${args.join('-')}.log`);
  writeFileSync(log, '');
  const rolloutsFile = join(bin, `rollouts-${args.join('-')}.json`);
  writeFileSync(rolloutsFile, rollouts);
  const child = spawn(PLUGIN, args, {
    env: {
      ...process.env,
      PATH: `${bin}:${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
      SWITCHBOARD_NAMESPACE: 'messaging',
      SWITCHBOARD_API_KEY: '',
      FAKE_KUBECTL_LOG: log,
      FAKE_API_KEY: ADMIN_KEY,
      FAKE_PORT: new URL(gw.url).port,
      FAKE_ROLLOUTS: rolloutsFile,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, output, kubectl: readFileSync(log, 'utf8').trim().split('\n') })));
}

describe('kubectl switchboard', () => {
  it('status: finds the gateway Service, reads the admin key from the chart Secret, and runs the CLI through port-forward', async () => {
    const { code, output, kubectl } = await plugin(['status']);
    expect(output).toMatch(/^kube\s+SANDBOX\s+WORKING\s+Sandbox/m);
    expect(code).toBe(0);
    expect(kubectl).toEqual([
      'get service --namespace messaging -l app.kubernetes.io/component=gateway -o jsonpath={.items[0].metadata.name}',
      'get secret --namespace messaging sb-switchboard-api-key -o jsonpath={.data.api-key}',
      'port-forward --namespace messaging service/sb-switchboard-gateway :http',
    ]);
  });

  it('qr <session>: ends at once for a session that is WORKING', async () => {
    const { code, output } = await plugin(['qr', 'kube']);
    expect(output).toContain('kube is WORKING: paired as Sandbox');
    expect(code).toBe(0);
  });

  it('rollout status: reads the rollouts ConfigMaps with kubectl (no gateway), shows a halted one and ends 1', async () => {
    const halted = {
      engine: 'NOWEB',
      phase: 'Halted',
      from: { image: 'engine:1', clientVersion: '2.3000.1' },
      to: { image: 'engine:1', clientVersion: '2.3000.9' },
      startedAt: '2026-11-29T10:00:00.000Z',
      wave: 0,
      message: 'a: FAILED on engine:1 (client 2.3000.9): client_outdated; wave 0 rolled back to what each of its sessions ran before',
      sessions: {
        b: { state: 'pending', from: { image: 'engine:1', clientVersion: '2.3000.1' }, mustWork: true },
        a: {
          state: 'rolled_back',
          from: { image: 'engine:1', clientVersion: '2.3000.1' },
          mustWork: true,
          wave: 0,
          reason: 'FAILED on engine:1 (client 2.3000.9): client_outdated',
        },
      },
    };
    const complete = {
      engine: 'GOWS',
      phase: 'Complete',
      from: { image: 'gows:1' },
      to: { image: 'gows:2' },
      startedAt: '2026-11-29T09:00:00.000Z',
      wave: 1,
      sessions: { g: { state: 'updated', from: { image: 'gows:1' }, mustWork: true, wave: 0 } },
    };
    const { code, output, kubectl } = await plugin(['rollout', 'status'], rolloutList(halted, complete));
    expect(kubectl).toEqual(['get configmap --namespace messaging -l app.kubernetes.io/component=rollout -o json']);
    expect(output).toBe(
      [
        'GOWS: Complete, wave 1 (0 is the canary)',
        '  from gows:1',
        '  to   gows:2',
        '  pending 0, updating 0, updated 1, rolled_back 0',
        '  SESSION  STATE    WAVE  REASON',
        '  g        updated  0',
        'NOWEB: Halted, wave 0 (0 is the canary)',
        '  from engine:1 (client 2.3000.1)',
        '  to   engine:1 (client 2.3000.9)',
        '  pending 1, updating 0, updated 0, rolled_back 1',
        `  halted: ${halted.message}`,
        '  SESSION  STATE        WAVE  REASON',
        '  a        rolled_back  0     FAILED on engine:1 (client 2.3000.9): client_outdated',
        '',
      ].join('\n'),
    );
    expect(code).toBe(1);
  });

  it('rollout status: none stored says so and ends 0', async () => {
    const { code, output } = await plugin(['rollout', 'status']);
    expect(output).toBe('no engine version rollout: every engine pod runs the version it was made with\n');
    expect(code).toBe(0);
  });
});
