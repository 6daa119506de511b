import { inspect } from 'node:util';

/**
 * Polls until `check` returns a value (not undefined, null or false) or the deadline passes.
 * A check that throws is asked again, as one that is not there yet: what it checks (a resource,
 * a stream, a process) may not exist yet. The timeout names `what` and the last error.
 * The default budget is generous on purpose: it bounds a wait for a state, it does not time one
 * (speed is the benchmarks' job), and an engine pod's start on a busy 2-core CI machine has taken
 * over 5 s. A test whose rule is a time says so with its own `timeoutMs`.
 */
export async function waitFor<T>(
  check: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  what: string,
  timeoutMs = 15_000,
  intervalMs = 10,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== null && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${lastError instanceof Error ? String(lastError) : inspect(lastError)}` : ''}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
