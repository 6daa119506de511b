// Paced sending survives kill -9 (issue 32): a real gateway process, SIGKILLed while its queue
// sends, then started again on the same data dir. Every queued send goes out, in order, once.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { apiClient, freePort, waitFor } from '@switchboard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_KEY, workingSession } from '../support/gateway.js';
import { spawnGateway } from '../support/gateway-process.js';
import { type Receiver, startReceiver } from '../webhooks/support.js';

const CHAT = '15550002222@c.us';
const SENDS = 30;
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function gatewayProcess(dataDir: string, port: number): Promise<ChildProcess> {
  const child = await spawnGateway(dataDir, port);
  cleanups.push(() => child.exitCode === null && child.kill('SIGKILL'));
  return child;
}

/** The message ids of the session's sent messages, each with the distinct events that carried it. */
function sentMessages(rx: Receiver): Map<string, Set<string>> {
  const byMessage = new Map<string, Set<string>>();
  for (const envelope of rx.accepted) {
    if (envelope.event !== 'message.any' || envelope.payload['fromMe'] !== true) continue;
    const id = String(envelope.payload['id']);
    byMessage.set(id, (byMessage.get(id) ?? new Set()).add(envelope.id));
  }
  return byMessage;
}

/** The session's queue as the data dir holds it, read beside the running (or killed) gateway. */
function queueRows(dataDir: string): Array<{ id: string; state: string }> {
  const db = new DatabaseSync(join(dataDir, 'switchboard.db'), { readOnly: true });
  try {
    return db.prepare('SELECT id, state FROM send_queue ORDER BY seq').all() as Array<{ id: string; state: string }>;
  } finally {
    db.close();
  }
}

async function sendText(port: number, text: string, id: string): Promise<number> {
  const answer = await fetch(`http://127.0.0.1:${port}/api/sendText`, {
    method: 'POST',
    headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json', 'x-switchboard-wait': '0' },
    body: JSON.stringify({ session: 'crash', chatId: CHAT, text, id }),
  });
  return answer.status;
}

async function pacedSession(port: number, rx: Receiver, sending: Record<string, unknown>) {
  const api = apiClient(`http://127.0.0.1:${port}`, ADMIN_KEY);
  await workingSession({ api }, 'crash', {
    config: { webhooks: [{ url: rx.url, events: ['message.any'], retries: { policy: 'constant', delaySeconds: 0.1, attempts: 50 } }], sending },
  });
  return api;
}

describe('the send queue under kill -9', () => {
  it('sends every queued message after the restart, in queue order, none twice', async () => {
    const rx = await startReceiver();
    cleanups.push(() => rx.close());
    const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-sendqueue-crash-'));
    const port = await freePort();
    const first = await gatewayProcess(dataDir, port);
    // 30 sends 200 to 300 ms apart take over 7 s: the kill, right after the fifth, comes while most still wait.
    const api = await pacedSession(port, rx, { delay: { minMs: 200, maxMs: 300 } });
    const ids = Array.from({ length: SENDS }, (_, n) => `CRASH${String(n).padStart(7, '0')}`);
    for (const [n, id] of ids.entries()) expect([201, 202]).toContain(await sendText(port, `queued ${n}`, id));
    await waitFor(() => sentMessages(rx).size >= 5, 'the queue to be sending');
    const exited = new Promise((resolve) => first.once('exit', resolve));
    first.kill('SIGKILL');
    await exited;
    const sentBefore = sentMessages(rx).size;
    expect(sentBefore).toBeLessThan(SENDS);

    await gatewayProcess(dataDir, port);
    await waitFor(async () => ((await api('GET', '/api/crash/queue')).body as { total: number }).total === 0, 'the queue to empty', 30_000);
    await waitFor(() => sentMessages(rx).size === SENDS, 'every message at the receiver', 30_000);
    const sent = sentMessages(rx);
    // In queue order: the order each message first reached the receiver.
    expect([...sent.keys()].map((id) => id.split('_')[2])).toEqual(ids);
    // Once each: a webhook may deliver an event twice after a crash, but each message was made by one send.
    expect([...sent.entries()].filter(([, events]) => events.size !== 1)).toEqual([]);
  }, 120_000);

  it('sends once after the restart a send that was handed to the engine but had not gone out (killed while typing)', async () => {
    const rx = await startReceiver();
    cleanups.push(() => rx.close());
    const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-sendqueue-typing-'));
    const port = await freePort();
    const first = await gatewayProcess(dataDir, port);
    // Typing grows with the text: the long first text types for 3 s, the short ones for 10 ms.
    const api = await pacedSession(port, rx, { typing: { msPerChar: 3, minMs: 10, maxMs: 3000 } });
    const ids = ['TYPING0000001', 'TYPING0000002', 'TYPING0000003'];
    expect(await sendText(port, 'x'.repeat(1000), ids[0]!)).toBe(202);
    for (const id of ids.slice(1)) expect(await sendText(port, 'short', id)).toBe(202);
    await waitFor(() => queueRows(dataDir)[0]?.state === 'sending', 'the first send to be typing');
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));
    expect(queueRows(dataDir)).toEqual([
      { id: ids[0], state: 'sending' },
      { id: ids[1], state: 'queued' },
      { id: ids[2], state: 'queued' },
    ]);
    expect(sentMessages(rx).size).toBe(0);

    await gatewayProcess(dataDir, port);
    await waitFor(async () => ((await api('GET', '/api/crash/queue')).body as { total: number }).total === 0, 'the queue to empty', 30_000);
    await waitFor(() => sentMessages(rx).size === ids.length, 'the three messages at the receiver', 30_000);
    const sent = sentMessages(rx);
    expect([...sent.keys()].map((id) => id.split('_')[2])).toEqual(ids);
    expect([...sent.values()].map((events) => events.size)).toEqual([1, 1, 1]);
  }, 120_000);
});
