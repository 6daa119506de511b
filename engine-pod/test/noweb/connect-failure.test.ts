import { describe, expect, it } from 'vitest';
import { FakeWaServer } from '../fake-wa/index.js';
import { NowebSession } from './harness.js';

/**
 * Issue 12 item 9: a NOWEB session whose server refuses the connection gave up never (STARTING
 * for good). It now tries `connectAttempts` times with backoff, then is FAILED with the reason,
 * and a start tries again.
 */
describe('NOWEB against a server that refuses the connection', () => {
  it('retries, then becomes FAILED with the reason in session.status; start tries again and reaches the server', async () => {
    // A port nothing listens on: the fake's own, once it is closed.
    const gone = await FakeWaServer.start();
    await gone.close();
    const s = new NowebSession(gone, { engine: { connectAttempts: 3, reconnectDelayMs: () => 50 } });
    try {
      await s.host.start();
      await s.waitForStatus('FAILED', 10_000);
      const failed = s.payloads<{ status: string; reason?: string }>('session.status');
      expect(failed.map((p) => p.status)).toEqual(['STARTING', 'FAILED']);
      expect(failed[1]!.reason).toMatch(new RegExp(`could not connect to ${gone.url.replace(/[.]/g, '\\.')} in 3 attempts`));
      expect(s.host.failureReason).toBe(failed[1]!.reason);
      // It has given up: no more attempts, it stays FAILED.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(s.host.status).toBe('FAILED');
      expect(s.invalid).toEqual([]);

      // The server is back on the same address: start tries again, and the session reaches it.
      const back = await FakeWaServer.start({ port: Number(new URL(gone.url).port) });
      try {
        await s.host.start();
        await s.waitForStatus('SCAN_QR_CODE', 15_000);
        expect(s.host.failureReason).toBeNull();
        expect(
          s
            .payloads<{ status: string }>('session.status')
            .map((p) => p.status)
            .slice(-3),
        ).toEqual(['STOPPED', 'STARTING', 'SCAN_QR_CODE']);
      } finally {
        await s.host.stop();
        await back.close();
      }
    } finally {
      await s.close();
    }
  });
});
