import type { EngineName, PasskeyAssertionRequest, PasskeyChallenge, PasskeyConfirmationResponse, RequestCodeRequest } from '@switchboard/protocol';
import { CommandError } from '../command-error.js';
import { notSupported } from '../command-rules.js';

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

/** The QR code an engine holds while SCAN_QR_CODE: WRONG_STATUS until its service sent the first. */
export function currentQr(session: string, value: string | null): string {
  if (!value) throw new CommandError('WRONG_STATUS', `session '${session}' has no QR code yet; try again shortly`);
  return value;
}

/**
 * Engines that link a device by a code typed on the phone cannot register a number by SMS or
 * voice (`method`): 422 naming the engine.
 */
export function refuseNumberRegistration(engine: EngineName, session: string, request: RequestCodeRequest): void {
  if (!request.method) return;
  throw notSupported(session, engine, `registering a number by ${request.method} (\`method\`): it links a device by a code typed on the phone`, {
    field: 'method',
  });
}
