package natshost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/switchboard/engines/gows/internal/rpcschema"
)

// The cases of kube/test/outbound-policy.test.ts: the Go pod refuses what the Node pod refuses,
// with the same rule, source and text.

func policyOf(t *testing.T, deny, allow string) *OutboundPolicy {
	t.Helper()
	policy, err := NewOutboundPolicy(deny, allow)
	if err != nil {
		t.Fatal(err)
	}
	return policy
}

func TestOutboundBuiltInRules(t *testing.T) {
	policy := policyOf(t, "", "")
	for _, address := range []string{"169.254.169.254", "169.254.0.1", "fe80::1", "fd00:ec2::254", "0.0.0.0", "0.1.2.3", "::", "224.0.0.251", "239.255.255.250", "ff02::1"} {
		if got := policy.RefusalOf(address, ""); got == nil || got.Target != address || got.Source != "built-in" {
			t.Errorf("%s: got %+v, want a built-in refusal", address, got)
		}
	}
	if got := policy.RefusalOf("169.254.169.254", ""); *got != (OutboundRefusal{Target: "169.254.169.254", Rule: "169.254.0.0/16", Source: "built-in"}) {
		t.Errorf("169.254.169.254: got %+v", got)
	}
	// IPv4-mapped IPv6 addresses against the IPv4 rules.
	for _, address := range []string{"::ffff:169.254.169.254", "::ffff:a9fe:a9fe", "[::ffff:169.254.169.254]"} {
		if got := policy.RefusalOf(address, ""); got == nil || got.Rule != "169.254.0.0/16" {
			t.Errorf("%s: got %+v, want rule 169.254.0.0/16", address, got)
		}
	}
	if got := policy.RefusalOfHost("[::ffff:169.254.169.254]"); got == nil || got.Rule != "169.254.0.0/16" {
		t.Errorf("a URL's [::ffff:169.254.169.254]: got %+v", got)
	}
	// Loopback, private ranges and public addresses are the deployment's to deny.
	for _, address := range []string{"127.0.0.1", "::1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "fd12::1", "93.184.215.14", "2606:4700::1111"} {
		if got := policy.RefusalOf(address, ""); got != nil {
			t.Errorf("%s: refused by %+v", address, got)
		}
	}
	if got := policy.RefusalOfHost("hooks.example.com"); got != nil {
		t.Errorf("hooks.example.com: refused by %+v", got)
	}
	if strings.Join(builtInDeny, ",") != "169.254.0.0/16,fe80::/10,fd00:ec2::254/128,0.0.0.0/8,::/128,224.0.0.0/4,ff00::/8" {
		t.Errorf("the built-in list is not the documented one: %v", builtInDeny)
	}
}

func TestOutboundDenyVariable(t *testing.T) {
	policy := policyOf(t, " 127.0.0.0/8, ::1 ,10.0.0.0/8,internal.example.com,*.corp.example.com", "")
	cases := []struct {
		address, host string
		want          *OutboundRefusal
	}{
		{"127.0.0.2", "", &OutboundRefusal{"127.0.0.2", "127.0.0.0/8", "SWITCHBOARD_OUTBOUND_DENY"}},
		{"::1", "", &OutboundRefusal{"::1", "::1", "SWITCHBOARD_OUTBOUND_DENY"}},
		{"::ffff:10.9.9.9", "", &OutboundRefusal{"::ffff:10.9.9.9", "10.0.0.0/8", "SWITCHBOARD_OUTBOUND_DENY"}},
		{"169.254.169.254", "", &OutboundRefusal{"169.254.169.254", "169.254.0.0/16", "built-in"}},
		// A host name rule matches the name, whatever address it resolves to.
		{"93.184.215.14", "Internal.Example.com.", &OutboundRefusal{"internal.example.com", "internal.example.com", "SWITCHBOARD_OUTBOUND_DENY"}},
		{"93.184.215.14", "example.com", nil},
	}
	for _, tc := range cases {
		checkRefusal(t, tc.address+" "+tc.host, policy.RefusalOf(tc.address, tc.host), tc.want)
	}
	hosts := []struct {
		host string
		rule string
	}{{"internal.example.com", "internal.example.com"}, {"a.b.corp.example.com", "*.corp.example.com"}, {"corp.example.com", ""}, {"localhost", ""}}
	for _, tc := range hosts {
		got := policy.RefusalOfHost(tc.host)
		if (tc.rule == "") != (got == nil) || (got != nil && got.Rule != tc.rule) {
			t.Errorf("host %s: got %+v, want rule %q", tc.host, got, tc.rule)
		}
	}
}

func TestOutboundAllowWins(t *testing.T) {
	policy := policyOf(t, "10.0.0.0/8,hooks.internal", "10.1.0.0/16,169.254.10.10,hooks.internal,receiver.corp")
	checkRefusal(t, "10.1.2.3", policy.RefusalOf("10.1.2.3", ""), nil)
	checkRefusal(t, "10.2.0.1", policy.RefusalOf("10.2.0.1", ""), &OutboundRefusal{"10.2.0.1", "10.0.0.0/8", "SWITCHBOARD_OUTBOUND_DENY"})
	checkRefusal(t, "169.254.10.10", policy.RefusalOf("169.254.10.10", ""), nil)
	checkRefusal(t, "169.254.169.254", policy.RefusalOf("169.254.169.254", ""), &OutboundRefusal{"169.254.169.254", "169.254.0.0/16", "built-in"})
	checkRefusal(t, "hooks.internal", policy.RefusalOfHost("hooks.internal"), nil)
	// An allowed name may resolve to a denied address: naming it is the operator's choice.
	checkRefusal(t, "receiver.corp", policy.RefusalOf("10.2.0.1", "receiver.corp"), nil)
}

func TestOutboundBadEntries(t *testing.T) {
	for _, tc := range []struct{ deny, allow, want string }{
		{"10.0.0.0/33", "", `SWITCHBOARD_OUTBOUND_DENY: "10.0.0.0/33" must have a prefix length from 0 to 32`},
		{"", "not a host", `SWITCHBOARD_OUTBOUND_ALLOW: "not a host" is neither a CIDR, an IP address nor a host name`},
		{"fe80::/x", "", "must have a prefix length from 0 to 128"},
	} {
		_, err := NewOutboundPolicy(tc.deny, tc.allow)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q %q: got %v, want %q", tc.deny, tc.allow, err, tc.want)
		}
	}
	_, err := ReadConfig(func(name string) string {
		return map[string]string{"SWITCHBOARD_SESSION": "s1", "SWITCHBOARD_NATS_URL": "nats://n:4222", "SWITCHBOARD_OUTBOUND_DENY": "10.0.0.0/33"}[name]
	})
	if err == nil || !strings.Contains(err.Error(), `SWITCHBOARD_OUTBOUND_DENY: "10.0.0.0/33"`) {
		t.Errorf("the pod's configuration does not name the bad entry: %v", err)
	}
}

func TestOutboundRefusalText(t *testing.T) {
	policy := policyOf(t, "127.0.0.0/8", "")
	if got := policy.RefusalOf("127.0.0.1", "").String(); got != "127.0.0.1 is denied by the outbound address policy (rule 127.0.0.0/8, SWITCHBOARD_OUTBOUND_DENY; SWITCHBOARD_OUTBOUND_ALLOW can allow it)" {
		t.Errorf("got %q", got)
	}
	if got := policy.RefusalOf("169.254.169.254", "").String(); !strings.Contains(got, "(rule 169.254.0.0/16, a built-in rule;") {
		t.Errorf("got %q", got)
	}
}

// A file by URL: downloaded from a loopback server while the variables allow it, refused naming
// the rule once SWITCHBOARD_OUTBOUND_DENY denies loopback, and let through again by _ALLOW.
func TestFileDownloadsFollowThePolicy(t *testing.T) {
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("hello")) }))
	defer server.Close()
	defer useOutboundPolicy(policyOf(t, "", ""))
	args := rawArgs(map[string]any{"chatId": "1@c.us", "kind": "file", "file": map[string]any{"mimetype": "text/plain", "url": server.URL + "/a.txt"}})
	send := withFile[rpcschema.ParamsSendMedia]("file")

	useOutboundPolicy(policyOf(t, "", ""))
	if _, err := send(context.Background(), args); err != nil {
		t.Fatalf("the built-in rules refused a loopback download: %v", err)
	}
	useOutboundPolicy(policyOf(t, "127.0.0.0/8", ""))
	_, err := send(context.Background(), args)
	var refusal *CommandError
	want := "file.url: could not be downloaded: 127.0.0.1 is denied by the outbound address policy (rule 127.0.0.0/8, SWITCHBOARD_OUTBOUND_DENY; SWITCHBOARD_OUTBOUND_ALLOW can allow it)"
	if !errors.As(err, &refusal) || refusal.Code != "INVALID" || refusal.Message != want {
		t.Errorf("got %v, want INVALID %q", err, want)
	}
	useOutboundPolicy(policyOf(t, "127.0.0.0/8", "127.0.0.1"))
	if _, err := send(context.Background(), args); err != nil {
		t.Errorf("_ALLOW did not let the download through: %v", err)
	}
	// A host name is checked on each address it resolves to.
	dial := policyOf(t, "127.0.0.0/8,::1", "").DialContext(&net.Dialer{})
	_, err = dial(context.Background(), "tcp", "localhost:1")
	var blocked *BlockedAddressError
	if !errors.As(err, &blocked) {
		t.Errorf("localhost with loopback denied: got %v, want a BlockedAddressError", err)
	}
}

func checkRefusal(t *testing.T, what string, got, want *OutboundRefusal) {
	t.Helper()
	if (got == nil) != (want == nil) || (got != nil && *got != *want) {
		t.Errorf("%s: got %+v, want %+v", what, got, want)
	}
}

// embeddedCases is kube/test/outbound-embedded-cases.json, which the Node policy's test reads too.
type embeddedCases struct {
	Policies []struct {
		Deny  string `json:"deny"`
		Allow string `json:"allow"`
		Cases []struct {
			Address string           `json:"address"`
			Refusal *OutboundRefusal `json:"refusal"`
		} `json:"cases"`
	} `json:"policies"`
}

// IPv6 addresses that carry an IPv4 address (NAT64, 6to4, IPv4-compatible, -mapped) are judged
// by that address too, as the Node policy judges them.
func TestOutboundEmbeddedIPv4(t *testing.T) {
	raw, err := os.ReadFile("../../../../kube/test/outbound-embedded-cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var shared embeddedCases
	if err := json.Unmarshal(raw, &shared); err != nil {
		t.Fatal(err)
	}
	if len(shared.Policies) == 0 {
		t.Fatal("no cases in kube/test/outbound-embedded-cases.json")
	}
	for _, set := range shared.Policies {
		policy := policyOf(t, set.Deny, set.Allow)
		for _, tc := range set.Cases {
			what := fmt.Sprintf("deny %q allow %q: %s", set.Deny, set.Allow, tc.Address)
			checkRefusal(t, what, policy.RefusalOf(tc.Address, ""), tc.Refusal)
			// As a URL's host too: only the rule is compared, the host being written as it came.
			got := policy.RefusalOfHost("[" + tc.Address + "]")
			if (got == nil) != (tc.Refusal == nil) || (got != nil && got.Rule != tc.Refusal.Rule) {
				t.Errorf("%s as a URL's host: got %+v, want %+v", what, got, tc.Refusal)
			}
		}
	}
}
