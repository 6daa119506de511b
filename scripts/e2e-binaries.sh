#!/usr/bin/env bash
# Builds the real control-plane binaries the e2e suite runs against (etcd, kube-apiserver,
# kubectl, nats-server, and helm and promtool for the chart tests) from source through the Go module proxy,
# into a cache outside the repo.
# Why from source: no container registry or release download is reachable here; Go modules are.
# Idempotent: a binary whose version-tagged file already exists is not rebuilt.
# stdout: only the bin dir, on the last line. Progress and timings go to stderr.
set -euo pipefail

tag=e2e-binaries
# shellcheck source=lib/go-tools.sh
source "$(dirname "$0")/lib/go-tools.sh"

ETCD_VERSION="$(req_version "$tools/etcd/go.mod" go.etcd.io/etcd/server/v3)"
KUBE_VERSION="$(req_version "$tools/kube/go.mod" k8s.io/kubernetes)"
NATS_VERSION="$(req_version "$tools/nats/go.mod" github.com/nats-io/nats-server/v2)"
HELM_VERSION="$(req_version "$tools/helm/go.mod" helm.sh/helm/v3)"
PROMTOOL_VERSION="$(req_version "$tools/promtool/go.mod" github.com/prometheus/prometheus)"
[ -n "$ETCD_VERSION" ] && [ -n "$KUBE_VERSION" ] && [ -n "$NATS_VERSION" ] && [ -n "$HELM_VERSION" ] && [ -n "$PROMTOOL_VERSION" ] ||
  { echo "e2e-binaries: cannot read the pins from test/e2e/tools/*/go.mod" >&2; exit 1; }

kube_flags="$(kube_ldflags "$KUBE_VERSION")"
build "etcd-$ETCD_VERSION" "$tools/etcd" build -trimpath -ldflags="-s -w" -o "{out}" .
build "kube-apiserver-$KUBE_VERSION" "$tools/kube" build -trimpath -ldflags="$kube_flags" -o "{out}" ./cmd/kube-apiserver
build "kubectl-$KUBE_VERSION" "$tools/kube" build -trimpath -ldflags="$kube_flags" -o "{out}" ./cmd/kubectl
build "nats-server-$NATS_VERSION" "$tools/nats" build -trimpath -ldflags="-s -w" -o "{out}" github.com/nats-io/nats-server/v2

# helm reports its version, and defaults .Capabilities.KubeVersion (helm template, helm lint) to
# the client-go minor it is built with, as its release builds do.
helm_kube="$(req_version "$tools/helm/go.mod" k8s.io/client-go)"; helm_kube="${helm_kube#v0.}"; helm_kube="${helm_kube%%.*}"
helm_ldflags="-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION -X helm.sh/helm/v3/internal/version.gitTreeState=clean"
for pkg in helm.sh/helm/v3/pkg/chartutil helm.sh/helm/v3/pkg/lint/rules; do
  helm_ldflags+=" -X $pkg.k8sVersionMajor=1 -X $pkg.k8sVersionMinor=$helm_kube"
done
build "helm-$HELM_VERSION" "$tools/helm" build -trimpath -ldflags="$helm_ldflags" -o "{out}" helm.sh/helm/v3/cmd/helm

# promtool checks and unit-tests the chart's alerting rules. remove_all_sd leaves out Prometheus's
# service discovery plugins (cloud SDKs, client-go), which rule checks never use: most of a cold build.
build "promtool-$PROMTOOL_VERSION" "$tools/promtool" build -trimpath -tags remove_all_sd -ldflags="-s -w" -o "{out}" github.com/prometheus/prometheus/cmd/promtool

echo "$bin"
