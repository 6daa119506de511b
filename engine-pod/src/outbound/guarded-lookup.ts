import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { describeRefusal, type OutboundPolicy, type OutboundRefusal } from '@switchboard/kube/pod';

/*
 * The outbound address policy's side that needs no HTTP client: the refusal and the DNS lookup
 * a socket connects with. NOWEB's websocket and the media code use these; only downloads need
 * undici's agent (guarded-agent.ts), which an engine pod loads the first time it downloads.
 */

/** A connection the outbound address policy refused: it was never attempted. */
export class BlockedAddressError extends Error {
  readonly code = 'BLOCKED_ADDRESS';

  constructor(readonly refusal: OutboundRefusal) {
    super(describeRefusal(refusal));
    this.name = 'BlockedAddressError';
  }
}

/** The refusal behind a failed request (undici's fetch puts it in `cause`), or null. */
export function blockedAddressOf(error: unknown): OutboundRefusal | null {
  for (let current = error; current instanceof Error; current = current.cause) {
    if (current instanceof BlockedAddressError) return current.refusal;
  }
  return null;
}

/** A DNS lookup that hands the socket only addresses the policy allows (see guardedAgent). */
export function guardedLookup(policy: OutboundPolicy): LookupFunction {
  return (hostname, options, callback) => {
    const all: LookupAllOptions = { ...options, all: true };
    dnsLookup(hostname, all, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const allowed = addresses.filter(({ address }) => policy.refusalOf(address, hostname) === null);
      const first = allowed[0];
      // Every address was refused (lookup fails with ENOTFOUND rather than find none).
      if (first === undefined) return callback(new BlockedAddressError(policy.refusalOf(addresses[0]!.address, hostname)!), '', 0);
      // net asks for every address when it tries them in turn (autoSelectFamily), else for one.
      if (options.all) (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, allowed);
      else callback(null, first.address, first.family);
    });
  };
}
