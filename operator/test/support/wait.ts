import { waitFor } from '@switchboard/testkit';

/**
 * testkit's `waitFor` at the pace of a real API server: asked every 100 ms, for 15 s unless told
 * otherwise (the operator acts through watches and its work queue, not at once).
 */
export function waitForApiServer<T>(check: () => Promise<T | null | undefined | false>, what: string, timeoutMs = 15_000): Promise<T> {
  return waitFor(check, what, timeoutMs, 100);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
