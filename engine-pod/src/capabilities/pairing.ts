import type { PasskeyAssertionRequest, PasskeyChallenge, PasskeyConfirmationResponse } from '@switchboard/protocol';

/**
 * Passkey pairing (spec 4.1), for engines whose messaging service can ask for one. The host
 * calls these only in the status each needs (command-rules.ts); an engine without them answers
 * 422 naming itself, whatever the status.
 */
export interface PasskeyPairing {
  /** The WebAuthn request options to sign; while PASSKEY_REQUIRED. */
  passkeyChallenge?(): Promise<PasskeyChallenge>;
  /** Checks the assertion: then WORKING, or PASSKEY_CONFIRMATION_REQUIRED when a code must be compared. */
  submitPasskey?(assertion: PasskeyAssertionRequest): Promise<void>;
  /** The code to compare with the phone's; while PASSKEY_CONFIRMATION_REQUIRED. */
  passkeyConfirmation?(): Promise<PasskeyConfirmationResponse>;
  /** The user saw the same code on the phone: WORKING. */
  confirmPasskey?(): Promise<void>;
}
