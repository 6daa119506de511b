import type { EngineOp } from '@switchboard/protocol';
import type { Engine } from '../engine.js';
import { PASSKEY_PAIRING } from './pairing.js';
import { capability } from './types.js';

/**
 * Ops whose engine method no status can stand in for. The host asks before it checks the status:
 * a NOWEB session asking for a passkey challenge learns that NOWEB has no passkey pairing, not
 * that it needs PASSKEY_REQUIRED, a status NOWEB never reaches.
 */
const METHOD_OF: { readonly [Op in EngineOp]?: readonly [method: keyof Engine, what: string] } = {
  'auth.passkey.challenge': ['passkeyChallenge', PASSKEY_PAIRING],
  'auth.passkey.submit': ['submitPasskey', PASSKEY_PAIRING],
  'auth.passkey.confirmation': ['passkeyConfirmation', PASSKEY_PAIRING],
  'auth.passkey.confirm': ['confirmPasskey', PASSKEY_PAIRING],
};

/** The 422 NOT_SUPPORTED naming the engine, when it lacks what `op` needs in every status. */
export function requireSupport(engine: Engine, op: EngineOp, session: string): void {
  const needed = METHOD_OF[op];
  if (needed) capability(engine, engine[needed[0]], needed[1], session);
}
