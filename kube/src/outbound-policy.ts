import { BlockList, isIP } from 'node:net';
import { embeddedIPv4 } from './embedded-ipv4.js';

export const OUTBOUND_DENY_VARIABLE = 'SWITCHBOARD_OUTBOUND_DENY' as const;
export const OUTBOUND_ALLOW_VARIABLE = 'SWITCHBOARD_OUTBOUND_ALLOW';

/**
 * Denied in every mode unless allowed: link-local and the cloud metadata endpoints (AWS's IPv6
 * one is not link-local), "this network" and `::` (a connect to them reaches the host itself),
 * and multicast. Loopback and private ranges are left to the deployment: in local mode a
 * receiver on the same host or network is the common case.
 */
export const BUILT_IN_DENY: readonly string[] = [
  '169.254.0.0/16',
  'fe80::/10',
  'fd00:ec2::254/128',
  '0.0.0.0/8',
  '::/128',
  '224.0.0.0/4',
  'ff00::/8',
];

/** Where a rule came from: a refusal names it, so whoever reads it knows what to change. */
export type RuleSource = 'built-in' | typeof OUTBOUND_DENY_VARIABLE;

/** Why a request on a user's behalf may not go where it was aimed. */
export interface OutboundRefusal {
  /** The address or host name refused. */
  readonly target: string;
  /** The deny rule it matched, as written (`169.254.0.0/16`, `metadata.internal`). */
  readonly rule: string;
  readonly source: RuleSource;
}

/** One entry of a rule list: a CIDR, an IP address, a host name or `*.` and a domain. */
interface Rule {
  readonly text: string;
  matchesAddress(address: string): boolean;
  matchesHost(host: string): boolean;
}

/**
 * The outbound address policy of every request the product makes on a user's behalf (webhook
 * deliveries, files sent by URL, and their redirects): an address or host name is refused when
 * a deny rule (built in, or SWITCHBOARD_OUTBOUND_DENY) matches it and no allow rule
 * (SWITCHBOARD_OUTBOUND_ALLOW) does. Allow wins, over the built-in rules too. Addresses are
 * matched with node:net's BlockList, and so is the IPv4 address an IPv6 one carries (NAT64,
 * 6to4, IPv4-compatible or -mapped: embedded-ipv4.ts), since a connection to it can reach that
 * IPv4 address.
 */
export class OutboundPolicy {
  private readonly deny: readonly { readonly rule: Rule; readonly source: RuleSource }[];
  private readonly allow: readonly Rule[];

  /** Rules as the variables hold them: comma-separated entries. Throws naming a bad entry. */
  constructor(rules: { readonly deny?: string | undefined; readonly allow?: string | undefined } = {}) {
    this.deny = [
      ...BUILT_IN_DENY.map((text) => ({ rule: parseRule(text), source: 'built-in' as const })),
      ...parseRules(rules.deny, OUTBOUND_DENY_VARIABLE).map((rule) => ({ rule, source: OUTBOUND_DENY_VARIABLE })),
    ];
    this.allow = parseRules(rules.allow, OUTBOUND_ALLOW_VARIABLE);
  }

  /** From SWITCHBOARD_OUTBOUND_DENY and SWITCHBOARD_OUTBOUND_ALLOW. Throws naming the variable and the entry. */
  static fromEnv(env: NodeJS.ProcessEnv): OutboundPolicy {
    return new OutboundPolicy({ deny: env[OUTBOUND_DENY_VARIABLE], allow: env[OUTBOUND_ALLOW_VARIABLE] });
  }

  /**
   * Whether a connection to `address` may be made; `host` is the name it was resolved from, if
   * any. An allow rule matching either lets it through; else a deny rule matching either refuses it.
   */
  refusalOf(address: string, host?: string): OutboundRefusal | null {
    const name = host === undefined ? undefined : hostKey(host);
    // The address and the IPv4 address it carries, if any: a rule matching either matches.
    const forms = [address, ...embeddedIPv4(address)];
    const matches = (rule: Rule) => forms.some((form) => rule.matchesAddress(form));
    if (this.allow.some((rule) => matches(rule) || (name !== undefined && rule.matchesHost(name)))) return null;
    for (const { rule, source } of this.deny) {
      if (name !== undefined && rule.matchesHost(name)) return { target: name, rule: rule.text, source };
      if (matches(rule)) return { target: address, rule: rule.text, source };
    }
    return null;
  }

  /**
   * What is known of a URL before it is resolved: its host when that is an address, or a host
   * name the rules name. Null when the request may be tried (the connection is checked again).
   */
  refusalOfUrl(url: string | URL): OutboundRefusal | null {
    const host = hostKey(new URL(url).hostname);
    if (isIP(host) !== 0) return this.refusalOf(host);
    if (this.allow.some((rule) => rule.matchesHost(host))) return null;
    const denied = this.deny.find(({ rule }) => rule.matchesHost(host));
    return denied ? { target: host, rule: denied.rule.text, source: denied.source } : null;
  }
}

/** What a user reads: the address, the rule, and where the rule is set. */
export function describeRefusal(refusal: OutboundRefusal): string {
  const where = refusal.source === 'built-in' ? 'a built-in rule' : refusal.source;
  return `${refusal.target} is denied by the outbound address policy (rule ${refusal.rule}, ${where}; ${OUTBOUND_ALLOW_VARIABLE} can allow it)`;
}

/** Lower case, without the brackets of an IPv6 literal and the trailing dot of a fully qualified name. */
function hostKey(host: string): string {
  return host
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '')
    .toLowerCase();
}

function parseRules(text: string | undefined, variable: string): Rule[] {
  const entries = (text ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  return entries.map((entry) => {
    try {
      return parseRule(entry);
    } catch (error) {
      throw new Error(`${variable}: "${entry}" ${(error as Error).message}`, { cause: error });
    }
  });
}

/** RFC 1123 labels; a leading `*.` matches every name below the domain (not the domain itself). */
const HOST_NAME = /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

function parseRule(text: string): Rule {
  const slash = text.indexOf('/');
  const address = hostKey(slash === -1 ? text : text.slice(0, slash));
  const family = isIP(address);
  if (family !== 0) {
    const bits = family === 4 ? 32 : 128;
    const prefix = slash === -1 ? String(bits) : text.slice(slash + 1);
    if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > bits) throw new Error(`must have a prefix length from 0 to ${bits}`);
    const list = new BlockList();
    list.addSubnet(address, Number(prefix), family === 4 ? 'ipv4' : 'ipv6');
    return {
      text,
      matchesAddress: (candidate) => {
        const candidateFamily = isIP(candidate);
        return candidateFamily !== 0 && list.check(candidate, candidateFamily === 4 ? 'ipv4' : 'ipv6');
      },
      matchesHost: () => false,
    };
  }
  const name = hostKey(text);
  if (slash !== -1 || !HOST_NAME.test(name)) throw new Error('is neither a CIDR, an IP address nor a host name');
  const suffix = name.startsWith('*.') ? name.slice(1) : null;
  return {
    text,
    matchesAddress: () => false,
    matchesHost: (host) => (suffix === null ? host === name : host.endsWith(suffix)),
  };
}
