import { DEFAULT_SANDBOX_ME, type SimulatePasskey } from '@switchboard/protocol';
import type { z } from 'zod';
import { invalidField } from '../../../command-error.js';
import { SANDBOX_PASSKEY_RP } from '../passkey.js';
import type { SandboxSide } from '../sandbox-side.js';
import { assertionKey } from '../webauthn-assertion.js';
import type { SimulationResult } from './simulation.js';

/**
 * The phone asks for a passkey instead of a QR scan: PASSKEY_REQUIRED. Answers the relying party
 * the assertion must be made for.
 */
export async function simulatePasskey(side: SandboxSide, request: z.infer<typeof SimulatePasskey>): SimulationResult {
  let credential = null;
  if (request.credential) {
    const publicKey = assertionKey(request.credential.publicKey);
    if (typeof publicKey === 'string') throw invalidField('credential.publicKey', publicKey);
    credential = { id: request.credential.id, publicKey };
  }
  side.requireStatus('SCAN_QR_CODE');
  side.passkey.require({ credential, confirmation: request.confirmation, me: request.me ?? DEFAULT_SANDBOX_ME });
  return { ...SANDBOX_PASSKEY_RP };
}
