import { ErrorBody, QueuedSendAccepted, SEND_WAIT_HEADER, SendWaitMs } from '@switchboard/protocol';
import { z } from 'zod';

/** How long a paced send waits for its slot when the client does not say (the header). */
export const DEFAULT_SEND_WAIT_MS = 10_000;

/** The header a client bounds a paced send's wait with; optional, so the peer's calls are unchanged. */
export const sendWaitHeaders = z.object({
  [SEND_WAIT_HEADER]: SendWaitMs.optional().meta({
    description: `Paced sending: how long the call may wait for the send to go out before answering 202 (default ${DEFAULT_SEND_WAIT_MS})`,
  }),
});

/** The answers a send route adds when its session paces sends. */
export const pacedResponses = {
  202: QueuedSendAccepted,
  429: ErrorBody.meta({ description: "Paced sending: the session's send queue is full; `Retry-After` is when its next send is due" }),
} as const;

/** The wait the (already validated) header asks for. */
export function sendWaitOf(headers: Record<string, unknown>): number {
  const value = headers[SEND_WAIT_HEADER];
  return value === undefined ? DEFAULT_SEND_WAIT_MS : SendWaitMs.parse(value);
}
