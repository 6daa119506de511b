import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { describeRefusal, type OutboundPolicy, type OutboundRefusal } from '@switchboard/kube/pod';
import { Agent, buildConnector } from 'undici';

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

/**
 * An undici agent whose every connection is checked against the policy on the address it is
 * about to connect to: a literal address before connecting, a host name on the addresses DNS
 * gives for it, in the lookup the socket itself connects with. So a name that resolves to a
 * denied address (DNS rebinding included: there is no second lookup) and each redirect's new
 * origin (a new connection) are refused as well. Denied addresses among several a name has are
 * skipped; when none is left, the connection fails with a BlockedAddressError.
 */
export function guardedAgent(policy: OutboundPolicy, options: Omit<Agent.Options, 'connect'> = {}): Agent {
  const connect = buildConnector({ lookup: guardedLookup(policy) });
  return new Agent({
    ...options,
    connect: (target, callback) => {
      const refusal = isIP(target.hostname) === 0 ? null : policy.refusalOf(target.hostname);
      if (refusal) callback(new BlockedAddressError(refusal), null);
      else connect(target, callback);
    },
  });
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
