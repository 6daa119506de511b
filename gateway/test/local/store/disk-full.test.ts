// A 201 means stored (issue 12, item 21): a real gateway process whose data dir is on a small
// filesystem (a tmpfs with a size), which the test fills to the last byte.
import type { ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WebhookConfig } from '@switchboard/protocol';
import { type ApiCall, apiClient, freePort, waitFor } from '@switchboard/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_KEY, workingSession } from '../../support/gateway.js';
import { spawnGateway } from '../../support/gateway-process.js';
import { startReceiver } from '../../webhooks/support.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Mounting needs root (this build machine runs as root); elsewhere the test cannot make a small filesystem. */
const root = process.getuid?.() === 0;

/** A tmpfs of `size` at a new directory, unmounted after the test. */
function smallFilesystem(size: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-full-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
  cleanups.push(() => {
    execFileSync('umount', ['-l', dir]);
    rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

/** Writes zeros into `file` until the filesystem has no byte left. */
function fill(file: string): void {
  const fd = openSync(file, 'w');
  const chunk = Buffer.alloc(64 * 1024);
  try {
    for (let size = chunk.length; size > 0;) {
      try {
        writeSync(fd, chunk, 0, size);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
        size = Math.floor(size / 2);
      }
    }
  } finally {
    closeSync(fd);
  }
}

/** A gateway process whose data dir is on a new 4 MB tmpfs: its API, and the mount to fill. */
async function gatewayOnSmallFilesystem(): Promise<{ mount: string; api: ApiCall }> {
  const mount = smallFilesystem('4m');
  const dataDir = join(mount, 'data');
  mkdirSync(dataDir);
  const port = await freePort();
  const gateway: ChildProcess = await spawnGateway(dataDir, port);
  cleanups.push(() => gateway.exitCode === null && gateway.kill('SIGKILL'));
  return { mount, api: apiClient(`http://127.0.0.1:${port}`, ADMIN_KEY) };
}

describe('a 201 means stored: a full data dir (issue 12, item 21)', () => {
  it.skipIf(!root)(
    'answers 507 for the sends and simulated messages it cannot store, delivers none of them, keeps serving reads, and recovers when space returns',
    async () => {
      const rx = await startReceiver();
      cleanups.push(() => rx.close());
      const { mount, api } = await gatewayOnSmallFilesystem();
      const hook: WebhookConfig = { url: rx.url, events: ['message', 'message.any'] };
      await workingSession({ api }, 'full', { config: { webhooks: [hook] } });

      // Simulated incoming messages and sends, each with a text of its own, until one is refused.
      const stored: string[] = [];
      const refused: string[] = [];
      const call = (text: string, send: boolean) =>
        send
          ? api('POST', '/api/sendText', { session: 'full', chatId: '15551234567@c.us', text })
          : api('POST', '/api/full/sandbox/simulate', { kind: 'message', from: '15557654321@c.us', body: text });
      const filler = join(mount, 'filler');
      fill(filler);
      for (let i = 0; i < 400 && refused.length === 0; i++) {
        const text = `while full ${i}`;
        const res = await call(text, i % 2 === 1);
        if (res.status === 201) stored.push(text);
        else {
          expect(res.status).toBe(507);
          expect(res.body).toMatchObject({ statusCode: 507, error: 'Insufficient Storage' });
          expect(res.body.message).toMatch(/could not be stored|cannot be stored/);
          refused.push(text);
        }
      }
      expect(refused.length).toBe(1);
      // Refused from now on before anything is done, both kinds; reads are served.
      for (const send of [false, true]) {
        const text = `refused ${send ? 'send' : 'message'}`;
        const res = await call(text, send);
        expect(res.status).toBe(507);
        expect(res.body.message).toContain('the call was not made');
        refused.push(text);
      }
      expect((await api('GET', '/api/sessions/full')).status).toBe(200);
      expect((await api('GET', '/api/full/event-log?limit=10')).status).toBe(200);

      // Space returns: within a couple of seconds calls are stored again, without a restart.
      rmSync(filler);
      const after = await waitFor(
        async () => {
          const res = await call('after space returned', true);
          return res.status === 201 && res;
        },
        'a send answered 201 again',
        10_000,
      );
      expect(after.status).toBe(201);
      stored.push('after space returned');

      const texts = () => new Set(rx.accepted.map((e) => String(e.payload.body)));
      await waitFor(() => stored.every((text) => texts().has(text)), 'every stored call delivered', 15_000);
      // Deliveries of the refused calls would have gone out with the stored ones: none did.
      expect(refused.filter((text) => texts().has(text))).toEqual([]);
    },
    90_000,
  );

  it.skipIf(!root)(
    'lists every message it answered 201 for in the history once space returns, and refuses sends while the history cannot be written (issue 26, item 8)',
    async () => {
      const { mount, api } = await gatewayOnSmallFilesystem();
      // No webhook: the history (and the event log) is all a send writes.
      await workingSession({ api }, 'kept');
      const chat = '15551234567@c.us';
      const stored: string[] = [];
      let refused = 0;
      const send = async (text: string) => {
        const res = await api('POST', '/api/sendText', { session: 'kept', chatId: chat, text });
        if (res.status === 201) stored.push(text);
        else {
          expect(res.status, JSON.stringify(res.body)).toBe(507);
          expect(res.body.message).toContain('the message history cannot be written');
          refused++;
        }
      };
      const filler = join(mount, 'filler');
      fill(filler);
      for (let i = 0; i < 2_000 && refused < 3; i++) await send(`while full ${i}`);

      rmSync(filler);
      const again = async () => {
        const res = await api('POST', '/api/sendText', { session: 'kept', chatId: chat, text: 'after space returned' });
        return res.status === 201 && stored.push('after space returned');
      };
      await waitFor(again, 'a send answered 201 again', 15_000, 100);
      // The retried rows are committed before sends are taken again: nothing is left to wait for.
      const bodies = new Set<string>();
      for (let offset = 0; ; offset += 1_000) {
        const page = await api('GET', `/api/kept/chats/${chat}/messages?limit=1000&offset=${offset}`);
        expect(page.status, JSON.stringify(page.body)).toBe(200);
        for (const record of page.body as { body: string }[]) bodies.add(record.body);
        if ((page.body as unknown[]).length < 1_000) break;
      }
      expect(stored.filter((text) => !bodies.has(text))).toEqual([]);
      // The sends made once the history could not be written were refused, rather than left out of it.
      expect(refused).toBe(3);
    },
    90_000,
  );

  it.skipIf(!root)(
    'serves the reads (me, profile, contacts, number checks, groups, labels, new message ids) while sends answer 507 (issue 26, item 7)',
    async () => {
      const rx = await startReceiver();
      cleanups.push(() => rx.close());
      const { mount, api } = await gatewayOnSmallFilesystem();
      // A webhook, so that each send's events are committed with the call (the outbox).
      await workingSession({ api }, 'reads', { config: { webhooks: [{ url: rx.url, events: ['message.any'] }] } });
      const send = (text: string) => api('POST', '/api/sendText', { session: 'reads', chatId: '15551234567@c.us', text });
      fill(join(mount, 'filler'));
      // Sends until one is refused: from then on every call that stores events is refused unrun.
      let status = 201;
      for (let i = 0; i < 400 && status === 201; i++) status = (await send(`filling ${i}`)).status;
      expect(status).toBe(507);

      const reads = [
        '/api/sessions/reads/me',
        '/api/reads/profile',
        '/api/contacts/all?session=reads',
        '/api/contacts/check-exists?session=reads&phone=15551234567',
        '/api/reads/groups',
        '/api/reads/labels',
        '/api/reads/new-message-id',
      ];
      for (const path of reads) {
        const res = await api('GET', path);
        expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
      }
      const checked = await api('POST', '/api/contacts/check-exists', { session: 'reads', phone: '15551234567' });
      expect(checked.status, JSON.stringify(checked.body)).toBe(200);
      const after = await send('after the reads');
      expect(after.status).toBe(507);
      expect(after.body.message).toContain('the call was not made');
    },
    90_000,
  );
});
