package natshost

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"regexp"
	"strconv"
	"strings"
)

/*
 * The outbound address policy, as kube/src/outbound-policy.ts has it for the Node pod: an address
 * or host name is refused when a deny rule (built in, or SWITCHBOARD_OUTBOUND_DENY) matches it and
 * no allow rule (SWITCHBOARD_OUTBOUND_ALLOW) does; allow wins, over the built-in rules too. The
 * same rules, the same parsing, the same refusal text, so a session's files by URL are refused
 * alike on either pod. Loopback and private ranges are the deployment's to deny (the chart does).
 */

const (
	outboundDenyVariable  = "SWITCHBOARD_OUTBOUND_DENY"
	outboundAllowVariable = "SWITCHBOARD_OUTBOUND_ALLOW"
	builtIn               = "built-in"
)

// builtInDeny: link-local and the cloud metadata endpoints, "this network" and `::`, multicast.
var builtInDeny = []string{"169.254.0.0/16", "fe80::/10", "fd00:ec2::254/128", "0.0.0.0/8", "::/128", "224.0.0.0/4", "ff00::/8"}

// OutboundRefusal: what was refused (an address or host name), by which rule as written, set where.
type OutboundRefusal struct {
	Target string
	Rule   string
	Source string // builtIn or outboundDenyVariable
}

// String is what a user reads (describeRefusal).
func (r OutboundRefusal) String() string {
	where := r.Source
	if where == builtIn {
		where = "a built-in rule"
	}
	return fmt.Sprintf("%s is denied by the outbound address policy (rule %s, %s; %s can allow it)", r.Target, r.Rule, where, outboundAllowVariable)
}

// outboundRule: a CIDR or an address (prefix set), or a host name, `*.` and a domain matching the names below it.
type outboundRule struct {
	text   string
	prefix netip.Prefix
	name   string
	suffix string
}

// matchesAddress: the address, or the IPv4 address it carries (NAT64, 6to4, IPv4-compatible or
// -mapped: embedded.go), is in the rule's prefix.
func (r outboundRule) matchesAddress(address string) bool {
	if !r.prefix.IsValid() {
		return false
	}
	ip, err := netip.ParseAddr(hostKey(address))
	if err != nil {
		return false
	}
	ip = ip.WithZone("")
	if r.prefix.Contains(ip) {
		return true
	}
	inner, ok := embeddedIPv4(ip)
	return ok && r.prefix.Contains(inner)
}

func (r outboundRule) matchesHost(host string) bool {
	if r.prefix.IsValid() {
		return false
	}
	if r.suffix != "" {
		return strings.HasSuffix(host, r.suffix)
	}
	return host == r.name
}

type deniedBy struct {
	rule   outboundRule
	source string
}

// OutboundPolicy: the built-in rules and the two variables' (each comma-separated entries).
type OutboundPolicy struct {
	deny  []deniedBy
	allow []outboundRule
}

// NewOutboundPolicy reads the variables' texts; an error names the variable and the entry.
func NewOutboundPolicy(deny, allow string) (*OutboundPolicy, error) {
	policy := &OutboundPolicy{}
	for _, text := range builtInDeny {
		rule, _ := parseOutboundRule(text)
		policy.deny = append(policy.deny, deniedBy{rule, builtIn})
	}
	denied, err := parseOutboundRules(deny, outboundDenyVariable)
	if err != nil {
		return nil, err
	}
	for _, rule := range denied {
		policy.deny = append(policy.deny, deniedBy{rule, outboundDenyVariable})
	}
	if policy.allow, err = parseOutboundRules(allow, outboundAllowVariable); err != nil {
		return nil, err
	}
	return policy, nil
}

// RefusalOf: whether a connection to address may be made (nil: it may); host is the name it
// was resolved from, "" for none. An allow rule matching either lets it through.
func (p *OutboundPolicy) RefusalOf(address, host string) *OutboundRefusal {
	name := hostKey(host)
	for _, rule := range p.allow {
		if rule.matchesAddress(address) || (name != "" && rule.matchesHost(name)) {
			return nil
		}
	}
	for _, denied := range p.deny {
		if name != "" && denied.rule.matchesHost(name) {
			return &OutboundRefusal{Target: name, Rule: denied.rule.text, Source: denied.source}
		}
		if denied.rule.matchesAddress(address) {
			return &OutboundRefusal{Target: address, Rule: denied.rule.text, Source: denied.source}
		}
	}
	return nil
}

// RefusalOfHost: what is known of a URL's host before it is resolved: an address, or a name the
// rules name (nil: the request may be tried; each connection is checked again).
func (p *OutboundPolicy) RefusalOfHost(hostname string) *OutboundRefusal {
	host := hostKey(hostname)
	if _, err := netip.ParseAddr(host); err == nil {
		return p.RefusalOf(host, "")
	}
	for _, rule := range p.allow {
		if rule.matchesHost(host) {
			return nil
		}
	}
	for _, denied := range p.deny {
		if denied.rule.matchesHost(host) {
			return &OutboundRefusal{Target: host, Rule: denied.rule.text, Source: denied.source}
		}
	}
	return nil
}

// BlockedAddressError: a connection the policy refused; it was never attempted.
type BlockedAddressError struct{ Refusal OutboundRefusal }

func (e *BlockedAddressError) Error() string { return e.Refusal.String() }

// DialContext connects only where the policy allows: a literal address as it is, a host name on
// the addresses DNS gives for it, each tried in turn (denied ones skipped; none left is a
// BlockedAddressError). Redirects are new connections, so they are checked too, and there is no
// second lookup for DNS rebinding to change (engine-pod/src/outbound/guarded-lookup.ts).
func (p *OutboundPolicy) DialContext(dialer *net.Dialer) func(ctx context.Context, network, address string) (net.Conn, error) {
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(address)
		if err != nil {
			return nil, err
		}
		if _, err := netip.ParseAddr(host); err == nil {
			if refusal := p.RefusalOf(host, ""); refusal != nil {
				return nil, &BlockedAddressError{*refusal}
			}
			return dialer.DialContext(ctx, network, address)
		}
		addresses, err := net.DefaultResolver.LookupIPAddr(ctx, host)
		if err != nil {
			return nil, err
		}
		var firstErr error
		for _, ip := range addresses {
			if refusal := p.RefusalOf(ip.IP.String(), host); refusal != nil {
				if firstErr == nil {
					firstErr = &BlockedAddressError{*refusal}
				}
				continue
			}
			conn, err := dialer.DialContext(ctx, network, net.JoinHostPort(ip.IP.String(), port))
			if err == nil {
				return conn, nil
			}
			var blocked *BlockedAddressError
			if firstErr == nil || errors.As(firstErr, &blocked) {
				firstErr = err
			}
		}
		if firstErr == nil {
			firstErr = &net.DNSError{Err: "no addresses", Name: host, IsNotFound: true}
		}
		return nil, firstErr
	}
}

// hostKey: lower case, without the brackets of an IPv6 literal and the trailing dot of a fully qualified name.
func hostKey(host string) string {
	if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		host = host[1 : len(host)-1]
	}
	return strings.ToLower(strings.TrimSuffix(host, "."))
}

func parseOutboundRules(text, variable string) ([]outboundRule, error) {
	var rules []outboundRule
	for _, entry := range strings.Split(text, ",") {
		if entry = strings.TrimSpace(entry); entry == "" {
			continue
		}
		rule, err := parseOutboundRule(entry)
		if err != nil {
			return nil, fmt.Errorf("%s: %q %s", variable, entry, err.Error())
		}
		rules = append(rules, rule)
	}
	return rules, nil
}

// hostName: RFC 1123 labels; a leading `*.` matches every name below the domain (not the domain itself).
var (
	hostName     = regexp.MustCompile(`^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$`)
	prefixDigits = regexp.MustCompile(`^\d{1,3}$`)
)

func parseOutboundRule(text string) (outboundRule, error) {
	slash := strings.Index(text, "/")
	head := text
	if slash != -1 {
		head = text[:slash]
	}
	if ip, err := netip.ParseAddr(hostKey(head)); err == nil {
		bits := ip.BitLen()
		length := strconv.Itoa(bits)
		if slash != -1 {
			length = text[slash+1:]
		}
		n, err := strconv.Atoi(length)
		if !prefixDigits.MatchString(length) || err != nil || n > bits {
			return outboundRule{}, fmt.Errorf("must have a prefix length from 0 to %d", bits)
		}
		return outboundRule{text: text, prefix: netip.PrefixFrom(ip.WithZone(""), n).Masked()}, nil
	}
	name := hostKey(text)
	if slash != -1 || !hostName.MatchString(name) {
		return outboundRule{}, errors.New("is neither a CIDR, an IP address nor a host name")
	}
	rule := outboundRule{text: text, name: name}
	if strings.HasPrefix(name, "*.") {
		rule.suffix = name[1:]
	}
	return rule, nil
}
