import type { WANumberExistResult } from '@switchboard/protocol';

/** What an account can look up with its messaging service. Optional, like every capability. */
export interface AccountLookups {
  /** A message id in the service's own form, which a send then accepts as its `id`. */
  newMessageId?(): Promise<string>;
  /** Whether a phone number (digits only) is registered with the service, and its chat id. */
  checkNumber?(phone: string): Promise<WANumberExistResult>;
}
