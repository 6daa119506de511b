import { type EngineContext, SandboxEngine } from '../../src/index.js';

/** The text that makes the drifting engine's `message.any` invalid. */
export const DRIFT = 'drift';

/**
 * An engine whose mapping drifted: a text whose body is "drift" comes out as `message.any` with a
 * `source` the spec does not have. Everything else is SANDBOX as it is. The tests of both modes
 * run it to prove such an event is dropped where it is made.
 */
export function driftingEngine(context: EngineContext): SandboxEngine {
  return new SandboxEngine(
    {
      ...context,
      emit: (event, payload) => context.emit(event, event === 'message.any' && payload.body === DRIFT ? { ...payload, source: 'phone' } : payload),
    },
    { qrRenewMs: 60_000, ackDelaysMs: { server: 10, device: 20 } },
  );
}
