// CoreDNS with only the plugins the real-node tier's Corefile uses (test/e2e-node/support/
// node-cluster.ts, corednsManifests), in upstream's order. Upstream's main package links all of
// its plugins, the cloud DNS providers' SDKs among them, and took 10.5 of the 21 minutes of a
// cold node build; this one links kubernetes and five small plugins. A plugin added to the
// Corefile must be added to both lists here.
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/loadbalance"
	_ "github.com/coredns/coredns/plugin/ready"
)

func init() {
	// The subset of upstream's core/dnsserver/zdirectives.go, in its order: a plugin sees the
	// effects of every plugin after it, so the order is not ours to choose.
	dnsserver.Directives = []string{"ready", "health", "errors", "loadbalance", "cache", "kubernetes"}
}

func main() {
	coremain.Run()
}
