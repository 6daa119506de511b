#!/usr/bin/env bash
# Builds the real control-plane binaries the e2e suite runs against (etcd, kube-apiserver,
# kubectl, nats-server, and helm for the chart tests) from source through the Go module proxy,
# into a cache outside the repo.
# Why from source: no container registry or release download is reachable here; Go modules are.
# Idempotent: a binary whose version-tagged file already exists is not rebuilt.
# stdout: only the bin dir, on the last line. Progress and timings go to stderr.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
tools="$root/test/e2e/tools"
bin="${SWITCHBOARD_CACHE:-$HOME/.cache/switchboard}/bin"

GO="$(command -v go || true)"
[ -n "$GO" ] || GO=/usr/local/go/bin/go
[ -x "$GO" ] || { echo "e2e-binaries: Go is required (go on PATH or /usr/local/go/bin/go)" >&2; exit 1; }

# The go.mod files are the single source of truth for the pins (control-plane.ts reads them too).
req_version() { awk -v m="$2" '$1 == m { print $2; exit } $1 == "require" && $2 == m { print $3; exit }' "$1"; }
ETCD_VERSION="$(req_version "$tools/etcd/go.mod" go.etcd.io/etcd/server/v3)"
KUBE_VERSION="$(req_version "$tools/kube/go.mod" k8s.io/kubernetes)"
NATS_VERSION="$(req_version "$tools/nats/go.mod" github.com/nats-io/nats-server/v2)"
HELM_VERSION="$(req_version "$tools/helm/go.mod" helm.sh/helm/v3)"
[ -n "$ETCD_VERSION" ] && [ -n "$KUBE_VERSION" ] && [ -n "$NATS_VERSION" ] && [ -n "$HELM_VERSION" ] ||
  { echo "e2e-binaries: cannot read the pins from test/e2e/tools/*/go.mod" >&2; exit 1; }

mkdir -p "$bin"
# -buildvcs=false: the tool modules sit inside this git repo, whose state says nothing about them.
# -mod=readonly: go.sum is committed and complete, so a build never rewrites it.
export GOFLAGS="-mod=readonly -buildvcs=false"
export CGO_ENABLED=0 # static binaries, no C toolchain needed

# build <name> <module dir> <go build args...>: builds into a temp dir ("{out}" in the args),
# then renames, so an interrupted or concurrent run never leaves a half-written binary under the
# final name.
build() {
  local name="$1" dir="$2"; shift 2
  local out="$bin/$name"
  if [ -x "$out" ]; then echo "e2e-binaries: $name cached" >&2; return; fi
  echo "e2e-binaries: building $name (a cold build of the Kubernetes ones takes minutes)" >&2
  local tmp start
  tmp="$(mktemp -d "$bin/.build.XXXXXX")"
  start=$SECONDS
  (cd "$dir" && "$GO" "${@//\{out\}/$tmp/}") >&2 || { rm -rf "$tmp"; echo "e2e-binaries: $name failed" >&2; exit 1; }
  mv -f "$tmp"/* "$out"
  rm -rf "$tmp"
  echo "e2e-binaries: built $name in $((SECONDS - start))s ($(du -h "$out" | cut -f1))" >&2
}

# kubectl and kube-apiserver report this version (kubectl version, /version), as release builds do.
kube_ldflags="-s -w"
minor="${KUBE_VERSION#v1.}"; minor="${minor%%.*}"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  kube_ldflags+=" -X $pkg.gitVersion=$KUBE_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
done

build "etcd-$ETCD_VERSION" "$tools/etcd" build -trimpath -ldflags="-s -w" -o "{out}" .
build "kube-apiserver-$KUBE_VERSION" "$tools/kube" build -trimpath -ldflags="$kube_ldflags" -o "{out}" ./cmd/kube-apiserver
build "kubectl-$KUBE_VERSION" "$tools/kube" build -trimpath -ldflags="$kube_ldflags" -o "{out}" ./cmd/kubectl
build "nats-server-$NATS_VERSION" "$tools/nats" build -trimpath -ldflags="-s -w" -o "{out}" github.com/nats-io/nats-server/v2

# helm reports its version, and defaults .Capabilities.KubeVersion (helm template, helm lint) to
# the client-go minor it is built with, as its release builds do.
helm_kube="$(req_version "$tools/helm/go.mod" k8s.io/client-go)"; helm_kube="${helm_kube#v0.}"; helm_kube="${helm_kube%%.*}"
helm_ldflags="-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION -X helm.sh/helm/v3/internal/version.gitTreeState=clean"
for pkg in helm.sh/helm/v3/pkg/chartutil helm.sh/helm/v3/pkg/lint/rules; do
  helm_ldflags+=" -X $pkg.k8sVersionMajor=1 -X $pkg.k8sVersionMinor=$helm_kube"
done
build "helm-$HELM_VERSION" "$tools/helm" build -trimpath -ldflags="$helm_ldflags" -o "{out}" helm.sh/helm/v3/cmd/helm

echo "$bin"
