import type { MeInfo, MessageRecord, SessionStatus } from '@switchboard/protocol';
import type { EngineContext } from '../../engine.js';
import type { SandboxWorld } from './sandbox-world.js';
import type { SandboxPasskey } from './passkey.js';

/**
 * What a simulation (sandbox/simulations/) may see and do of the simulated account: the engine
 * context to emit through, and the few state changes only the engine itself may make.
 */
export interface SandboxSide {
  readonly context: EngineContext;
  /** What the account knows: its messages, labels, groups and ringing calls. */
  readonly world: SandboxWorld;
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
  /** Passkey pairing, which the `passkey` simulation starts. */
  readonly passkey: SandboxPasskey;
  /** A sent message's `message.ack` SERVER, then DEVICE, after the configured delays (sending.ts). */
  acknowledgeLater(record: MessageRecord): void;
}
