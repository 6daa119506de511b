// Proves the e2e environment itself: a real API server that stores, admits and authorizes, a
// kubectl that talks to it, a NATS server with JetStream, and nothing listening beyond 127.0.0.1.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ControlPlane, type Nats, start, startNats } from './support/control-plane.js';

describe('e2e control plane', () => {
  let cp: ControlPlane;
  beforeAll(async () => {
    cp = await start();
  });
  afterAll(async () => {
    await cp?.stop();
  });

  it('applies a ConfigMap with kubectl and reads it back over REST', async () => {
    const manifest = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: smoke\ndata:\n  greeting: hello\n';
    expect(await cp.kubectl(['apply', '-f', '-'], manifest)).toContain('configmap/smoke created');

    const res = await cp.fetch('/api/v1/namespaces/default/configmaps/smoke');
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: unknown }).data).toEqual({ greeting: 'hello' });
  });

  it('authenticates and authorizes: a wrong token is 401, anonymous is 403, the admin is cluster-admin', async () => {
    expect((await cp.fetch('/api/v1/namespaces', { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    expect((await cp.fetch('/api/v1/namespaces', { headers: { authorization: '' } })).status).toBe(403);
    expect((await cp.kubectl(['auth', 'can-i', '*', '*', '--all-namespaces'])).trim()).toBe('yes');
  });

  it('admits a Pod through the default admission chain; with no node it stays Pending', async () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'smoke' },
      spec: { containers: [{ name: 'main', image: 'registry.invalid/engine:latest' }] },
    };
    const created = await cp.fetch('/api/v1/namespaces/default/pods', { method: 'POST', body: JSON.stringify(pod) });
    expect(created.status, await created.clone().text()).toBe(201);

    const read = (await (await cp.fetch('/api/v1/namespaces/default/pods/smoke')).json()) as {
      spec: { serviceAccountName: string; volumes: { name: string }[] };
      status: { phase: string };
    };
    expect(read.status.phase).toBe('Pending');
    // ServiceAccount admission ran: the default account and its projected token volume.
    expect(read.spec.serviceAccountName).toBe('default');
    expect(read.spec.volumes.map((v) => v.name).some((n) => n.startsWith('kube-api-access-'))).toBe(true);
    expect(await cp.kubectl(['get', 'pod', 'smoke', '-o', 'jsonpath={.status.phase}'])).toBe('Pending');
  });

  it('listens on loopback only', () => {
    for (const pid of Object.values(cp.pids)) {
      const addresses = listeningAddresses(pid);
      expect(addresses.length).toBeGreaterThan(0);
      for (const address of addresses) expect(address).toMatch(/^(127\.\d+\.\d+\.\d+|\[::1\]):\d+$/);
    }
  });
});

describe('e2e NATS', () => {
  let nats: Nats;
  beforeAll(async () => {
    nats = await startNats();
  });
  afterAll(async () => {
    await nats?.stop();
  });

  it('has JetStream: in INFO, answering $JS.API.INFO, and in /jsz', async () => {
    const { info, accountInfo } = await jetStreamInfo(nats.url);
    expect(info.jetstream).toBe(true);
    expect(accountInfo.type).toBe('io.nats.jetstream.api.v1.account_info_response');
    expect(accountInfo.error).toBeUndefined();

    const jsz = (await (await fetch(`${nats.monitorUrl}/jsz`)).json()) as { disabled?: boolean; config?: { store_dir: string } };
    expect(jsz.disabled).not.toBe(true);
    expect(jsz.config?.store_dir).toContain(nats.storeDir);
  });

  it('listens on loopback only', () => {
    const addresses = listeningAddresses(nats.pid);
    expect(addresses.length).toBe(2); // client and monitoring ports
    for (const address of addresses) expect(address).toMatch(/^127\.0\.0\.1:\d+$/);
  });
});

/**
 * The NATS protocol by hand (the nats client is not a dependency here): read INFO, then one
 * request to the JetStream API over an inbox.
 */
async function jetStreamInfo(url: string) {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  let buffer = '';
  let closed = false;
  const waiters: (() => void)[] = [];
  const wake = () => waiters.splice(0).forEach((w) => w());
  socket.on('data', (chunk) => {
    buffer += chunk.toString();
    wake();
  });
  socket.on('close', () => {
    closed = true;
    wake();
  });
  socket.on('error', () => {}); // surfaces as 'close'
  const deadline = Date.now() + 10_000;
  const next = async (pattern: RegExp) => {
    for (;;) {
      const match = pattern.exec(buffer);
      if (match) return match;
      if (closed || Date.now() > deadline) throw new Error(`NATS: no ${pattern} in ${JSON.stringify(buffer)}`);
      await new Promise<void>((w) => {
        waiters.push(w);
        setTimeout(w, 500);
      });
    }
  };
  try {
    const info = JSON.parse((await next(/^INFO (.*)\r\n/))[1]!) as { jetstream?: boolean };
    socket.write('CONNECT {"verbose":false,"pedantic":false,"headers":false}\r\nSUB _INBOX.smoke 1\r\nPUB $JS.API.INFO _INBOX.smoke 0\r\n\r\n');
    const msg = await next(/MSG _INBOX\.smoke 1 (\d+)\r\n/);
    const start = msg.index + msg[0].length;
    const payload = (await next(new RegExp(`^[\\s\\S]{${start + Number(msg[1])}}`)))[0].slice(start);
    return { info, accountInfo: JSON.parse(payload) as { type?: string; error?: unknown } };
  } finally {
    socket.destroy();
  }
}

/** The TCP listening addresses of one process, from /proc (Linux). */
function listeningAddresses(pid: number): string[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
      if (inode) inodes.add(inode);
    } catch {
      // the fd closed while we looked
    }
  }
  const found: string[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').trim().split('\n').slice(1)) {
      const [, local, , state, , , , , , inode] = line.trim().split(/\s+/);
      if (state !== '0A' || !inode || !inodes.has(inode)) continue; // 0A: LISTEN
      const [hex, port] = local!.split(':') as [string, string];
      found.push(`${decodeAddress(hex)}:${parseInt(port, 16)}`);
    }
  }
  return found;
}

/** /proc/net addresses are 32-bit words in host (little-endian) order. */
function decodeAddress(hex: string): string {
  const bytes = hex.match(/.{8}/g)!.flatMap((word) =>
    word
      .match(/../g)!
      .reverse()
      .map((b) => parseInt(b, 16)),
  );
  if (bytes.length === 4) return bytes.join('.');
  const v4mapped = bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  if (v4mapped) return bytes.slice(12).join('.');
  const groups = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16));
  return `[${groups.join(':').replace(/(^|:)0(:0)+(:|$)/, '::')}]`;
}
