import { isIP } from 'node:net';

/**
 * The IPv4 addresses an IPv6 address carries, for the outbound policy to judge as well: a
 * connection to one of these forms can reach the IPv4 address inside it (through a NAT64 gateway,
 * a 6to4 relay, or the host's own IPv4 stack), so a rule that denies the IPv4 address must deny
 * them too. The forms (engines/gows/internal/natshost/embedded.go has the same):
 * - `64:ff9b::/96`, NAT64's well-known prefix (RFC 6052): the last 32 bits;
 * - `2002::/16`, 6to4 (RFC 3056): the 32 bits after the prefix;
 * - `::/96`, IPv4-compatible (RFC 4291, deprecated): the last 32 bits, but `::` and `::1` are
 *   themselves (unspecified and loopback), not 0.0.0.0 and 0.0.0.1;
 * - `::ffff:0:0/96`, IPv4-mapped (node:net's BlockList also matches these against IPv4 rules).
 * Empty for an IPv4 address or an IPv6 address of none of these forms.
 */
export function embeddedIPv4(address: string): string[] {
  // A zone (`fe80::1%eth0`) says which link, not which address.
  const unzoned = address.split('%')[0]!;
  if (isIP(unzoned) !== 6) return [];
  const groups = ipv6Groups(unzoned);
  const zeros = (from: number, to: number) => groups.slice(from, to).every((group) => group === 0);
  const v4 = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  const [g0, g1, g2, , , g5, g6, g7] = groups as [number, number, number, number, number, number, number, number];
  if (g0 === 0x64 && g1 === 0xff9b && zeros(2, 6)) return [v4(g6, g7)];
  if (g0 === 0x2002) return [v4(g1, g2)];
  if (zeros(0, 5) && g5 === 0xffff) return [v4(g6, g7)];
  if (zeros(0, 6) && !(g6 === 0 && g7 <= 1)) return [v4(g6, g7)];
  return [];
}

/** The eight 16-bit groups of an IPv6 address: Node's URL parser writes it canonically (a dotted tail in hex), then `::` is expanded. */
function ipv6Groups(address: string): number[] {
  const canonical = new URL(`http://[${address}]`).hostname.slice(1, -1);
  const [head = '', tail] = canonical.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  if (tail === undefined) return parse(head);
  const left = parse(head);
  const right = parse(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}
