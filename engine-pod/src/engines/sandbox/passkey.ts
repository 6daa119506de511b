import { randomBytes, randomInt, type KeyObject } from 'node:crypto';
import type { MeInfo, PasskeyAssertionRequest, PasskeyChallenge, PasskeyConfirmationResponse, SessionStatus } from '@switchboard/protocol';
import { CommandError } from '../../command-error.js';
import type { SandboxSide } from './sandbox-side.js';
import { checkAssertion } from './webauthn-assertion.js';

/** The relying party a SANDBOX passkey is for: the messaging web client, as on the real service. */
export const SANDBOX_PASSKEY_RP = { rpId: 'web.whatsapp.com', origin: 'https://web.whatsapp.com' } as const;
const PASSKEY_CHALLENGE_TIMEOUT_MS = 60_000;

/** What the simulated phone asked for (`simulate` kind `passkey`). */
export interface PasskeyRequest {
  /** The one credential allowed; null allows any (a discoverable credential) and skips the signature. */
  readonly credential: { readonly id: string; readonly publicKey: KeyObject } | null;
  /** Whether a code must be compared after the assertion. */
  readonly confirmation: boolean;
  /** The account the pairing ends as. */
  readonly me: MeInfo;
}

/**
 * SANDBOX passkey pairing: PASSKEY_REQUIRED with a WebAuthn challenge, an assertion checked as a
 * relying party checks it, then WORKING, or PASSKEY_CONFIRMATION_REQUIRED with a code to confirm
 * first. Nothing of it is saved: a restart shows a QR code again, as an unfinished pairing does.
 */
export class SandboxPasskey {
  private request: PasskeyRequest | null = null;
  private challenge = { value: '', expiresAt: 0 };
  private code: string | null = null;

  constructor(private readonly side: Pick<SandboxSide, 'context' | 'requireStatus' | 'pair' | 'moveTo'>) {}

  /** The phone asks for a passkey: PASSKEY_REQUIRED. */
  require(request: PasskeyRequest): void {
    this.request = request;
    this.code = null;
    this.renewChallenge();
    this.side.moveTo('PASSKEY_REQUIRED');
  }

  /** WebAuthn request options. An expired challenge is replaced, as the service sends a new one. */
  options(): PasskeyChallenge {
    const request = this.pending('PASSKEY_REQUIRED');
    if (Date.now() >= this.challenge.expiresAt) this.renewChallenge();
    return {
      challenge: this.challenge.value,
      timeout: PASSKEY_CHALLENGE_TIMEOUT_MS,
      rpId: SANDBOX_PASSKEY_RP.rpId,
      allowCredentials: request.credential ? [{ id: request.credential.id, type: 'public-key', transports: ['internal', 'hybrid'] }] : [],
      userVerification: 'required',
    };
  }

  /** A 400 naming each field that fails; a valid assertion moves on and emits the new status. */
  async submit(assertion: PasskeyAssertionRequest): Promise<void> {
    const request = this.pending('PASSKEY_REQUIRED');
    if (Date.now() >= this.challenge.expiresAt) {
      throw invalid([{ path: 'body.response.clientDataJSON', reason: 'the challenge has expired; get the challenge again and sign the new one' }]);
    }
    const issues = checkAssertion(assertion, { challenge: this.challenge.value, ...SANDBOX_PASSKEY_RP, credential: request.credential });
    if (issues.length > 0) throw invalid(issues);
    if (request.confirmation) {
      this.code = String(randomInt(0, 10_000)).padStart(4, '0');
      this.side.moveTo('PASSKEY_CONFIRMATION_REQUIRED');
      return;
    }
    await this.finish(request);
  }

  confirmation(): PasskeyConfirmationResponse {
    this.pending('PASSKEY_CONFIRMATION_REQUIRED');
    return { code: this.code ?? '' };
  }

  async confirm(): Promise<void> {
    await this.finish(this.pending('PASSKEY_CONFIRMATION_REQUIRED'));
  }

  private async finish(request: PasskeyRequest): Promise<void> {
    this.request = null;
    this.code = null;
    await this.side.pair(request.me);
  }

  private pending(status: SessionStatus): PasskeyRequest {
    this.side.requireStatus(status);
    if (!this.request) throw new CommandError('WRONG_STATUS', `session '${this.side.context.session}' has no passkey pairing under way`);
    return this.request;
  }

  private renewChallenge(): void {
    this.challenge = { value: randomBytes(32).toString('base64url'), expiresAt: Date.now() + PASSKEY_CHALLENGE_TIMEOUT_MS };
  }
}

function invalid(issues: { path: string; reason: string }[]): CommandError {
  return new CommandError('INVALID', `the passkey assertion does not hold: ${issues.map((i) => `${i.path}: ${i.reason}`).join('; ')}`, issues);
}
