import { isIP } from 'node:net';
import type { OutboundPolicy } from '@switchboard/kube/pod';
import { Agent, buildConnector } from 'undici';
import { BlockedAddressError, guardedLookup } from './guarded-lookup.js';

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
