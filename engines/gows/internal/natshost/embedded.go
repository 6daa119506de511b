package natshost

import "net/netip"

// embeddedIPv4 is the IPv4 address an IPv6 address carries, for the outbound policy to judge as
// well: a connection to one of these forms can reach the IPv4 address inside it (through a NAT64
// gateway, a 6to4 relay, or the host's own IPv4 stack), so a rule denying the IPv4 address must
// deny them too. The forms, as kube/src/embedded-ipv4.ts has them:
//   - 64:ff9b::/96, NAT64's well-known prefix (RFC 6052): the last 32 bits;
//   - 2002::/16, 6to4 (RFC 3056): the 32 bits after the prefix;
//   - ::/96, IPv4-compatible (RFC 4291, deprecated): the last 32 bits, but :: and ::1 are
//     themselves (unspecified and loopback), not 0.0.0.0 and 0.0.0.1;
//   - ::ffff:0:0/96, IPv4-mapped.
//
// ok is false for an IPv4 address and for an IPv6 address of none of these forms.
func embeddedIPv4(address netip.Addr) (ipv4 netip.Addr, ok bool) {
	if !address.Is6() {
		return netip.Addr{}, false
	}
	b := address.As16()
	last := netip.AddrFrom4([4]byte(b[12:16]))
	switch {
	case address.Is4In6():
		return last, true
	case nat64.Contains(address):
		return last, true
	case sixToFour.Contains(address):
		return netip.AddrFrom4([4]byte(b[2:6])), true
	case ipv4Compatible.Contains(address) && address != netip.IPv6Unspecified() && address != netip.IPv6Loopback():
		return last, true
	}
	return netip.Addr{}, false
}

var (
	nat64          = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour      = netip.MustParsePrefix("2002::/16")
	ipv4Compatible = netip.MustParsePrefix("::/96")
)
