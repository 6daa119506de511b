import type { WANumberExistResult } from '@switchboard/protocol';

/**
 * Which numbers the simulated service has (docs/sandbox.md): every number but those starting
 * with `000`, so a test can have both answers without configuring anything.
 */
export function sandboxNumberLookup(phone: string): WANumberExistResult {
  return phone.startsWith('000') ? { numberExists: false } : { numberExists: true, chatId: `${phone}@c.us` };
}
