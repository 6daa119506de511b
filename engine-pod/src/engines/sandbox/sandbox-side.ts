import type { MeInfo, SessionStatus } from '@switchboard/protocol';
import type { EngineContext } from '../../engine.js';

/**
 * What a simulation (sandbox/simulations/) may see and do of the simulated account: the engine
 * context to emit through, and the few state changes only the engine itself may make.
 */
export interface SandboxSide {
  readonly context: EngineContext;
  readonly status: SessionStatus;
  /** The phone number a request-code pairing is waiting for, if any. */
  readonly pairingPhone: string | null;
  /** The account, or a 422 naming the status when the session is not WORKING. */
  requireWorking(): MeInfo;
  /** A 422 unless the session is in one of these statuses. */
  requireStatus(...expected: SessionStatus[]): void;
  /** Saves the account and becomes WORKING (as a finished pairing does). */
  pair(me: MeInfo): Promise<void>;
  /** Moves to a status the simulated phone asked for (e.g. PASSKEY_REQUIRED). */
  moveTo(status: SessionStatus): void;
}
