import { silenceReason } from '@switchboard/protocol';
import { waitFor, type WebhookReceiver, type WireJson } from '@switchboard/testkit';
import { expect } from 'vitest';
import type { FakePhone } from '../../engine-pod/test/fake-wa/index.js';

/**
 * Issue 31 §3, the same in both modes: the fake server goes quiet on the phone's connection; the
 * session's webhook gets STARTING with the silence's reason (its engine's timeout, `timeoutMs`),
 * then WORKING again on a new connection, and no new QR code. Waits on the webhook's events, each
 * for at most `waitMs`; gives the STARTING and WORKING envelopes.
 */
export async function silencedAndReconnected(
  receiver: WebhookReceiver,
  session: string,
  phone: FakePhone,
  { timeoutMs, waitMs }: { timeoutMs: number; waitMs: number },
): Promise<{ starting: WireJson; working: WireJson }> {
  const statuses = (match: (payload: WireJson) => boolean) => receiver.sessionEvents(session, 'session.status', match);
  const qrCodes = statuses((p) => p.status === 'SCAN_QR_CODE').length;
  const silenced = phone.connection;
  phone.silence();

  const starting = await waitFor(
    () => statuses((p) => p.status === 'STARTING' && typeof p.reason === 'string')[0],
    `${session} STARTING after the silence`,
    waitMs,
  );
  expect(starting.payload.reason).toBe(silenceReason(timeoutMs));
  expect(starting.payload.statuses.map((point: { status: string }) => point.status).slice(-2)).toEqual(['WORKING', 'STARTING']);
  const working = await waitFor(
    () => statuses((p) => p.status === 'WORKING').find((hook) => hook.timestamp > starting.timestamp),
    `${session} WORKING again`,
    waitMs,
  );
  // A new connection, logged in with the same pairing: no QR code was shown again.
  expect(phone.connection).not.toBe(silenced);
  expect(phone.isConnected).toBe(true);
  expect(statuses((p) => p.status === 'SCAN_QR_CODE')).toHaveLength(qrCodes);
  return { starting, working };
}
