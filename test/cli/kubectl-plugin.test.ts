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

function plugin(args: string[]): Promise<{ code: number | null; output: string; kubectl: string[] }> {
  const log = join(bin, `calls-${args.join('-')}.log`);
  writeFileSync(log, '');
  const child = spawn(PLUGIN, args, {
    env: {
      ...process.env,
      PATH: `${bin}:${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
      SWITCHBOARD_NAMESPACE: 'messaging',
      SWITCHBOARD_API_KEY: '',
      FAKE_KUBECTL_LOG: log,
      FAKE_API_KEY: ADMIN_KEY,
      FAKE_PORT: new URL(gw.url).port,
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
});
