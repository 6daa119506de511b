#!/usr/bin/env bash
# Builds the node components of the real-node tier (test/e2e-node/) from source through the Go
# module proxy, into the same cache as scripts/e2e-binaries.sh (which builds etcd, kube-apiserver
# and kubectl): kube-controller-manager, kube-scheduler, kubelet, kube-proxy (test/e2e/tools/kube),
# containerd + ctr + containerd-shim-runc-v2 (tools/containerd), the CNI reference plugins bridge,
# host-local, loopback and portmap (tools/cni), CoreDNS (tools/coredns), crictl (tools/crictl) and
# the pod sandbox's pause process (tools/pause, ours), and kube-router (tools/kube-router), whose
# network policy controller enforces NetworkPolicies on the node.
# Why from source: no container registry or release download is reachable here; Go modules are.
# Idempotent: a binary whose version-tagged file already exists is not rebuilt. A cold build takes
# about 20 minutes on 2 shared cores (the four Kubernetes ones dominate); warm it is instant.
# stdout: only the bin dir, on the last line. Progress and timings go to stderr.
set -euo pipefail

tag=node-binaries
# shellcheck source=lib/go-tools.sh
source "$(dirname "$0")/lib/go-tools.sh"

KUBE_VERSION="$(req_version "$tools/kube/go.mod" k8s.io/kubernetes)"
CONTAINERD_VERSION="$(req_version "$tools/containerd/go.mod" github.com/containerd/containerd/v2)"
CNI_VERSION="$(req_version "$tools/cni/go.mod" github.com/containernetworking/plugins)"
COREDNS_VERSION="$(req_version "$tools/coredns/go.mod" github.com/coredns/coredns)"
CRICTL_VERSION="$(req_version "$tools/crictl/go.mod" sigs.k8s.io/cri-tools)"
KUBE_ROUTER_VERSION="$(req_version "$tools/kube-router/go.mod" github.com/cloudnativelabs/kube-router/v2)"
for v in KUBE_VERSION CONTAINERD_VERSION CNI_VERSION COREDNS_VERSION CRICTL_VERSION KUBE_ROUTER_VERSION; do
  [ -n "${!v}" ] || { echo "node-binaries: cannot read $v from test/e2e/tools/*/go.mod" >&2; exit 1; }
done

kube_flags="$(kube_ldflags "$KUBE_VERSION")"
for cmd in kube-controller-manager kube-scheduler kube-proxy kubelet; do
  build "$cmd-$KUBE_VERSION" "$tools/kube" build -trimpath -ldflags="$kube_flags" -o "{out}" "./cmd/$cmd"
done

# containerd: no_btrfs because its btrfs snapshotter needs cgo (the overlayfs one is used);
# no_devmapper and no_zfs because nothing here uses them.
ctrd=github.com/containerd/containerd/v2
ctrd_ldflags="-s -w -X $ctrd/version.Version=$CONTAINERD_VERSION -X $ctrd/version.Package=$ctrd"
build "containerd-$CONTAINERD_VERSION" "$tools/containerd" build -trimpath -tags "no_btrfs no_devmapper no_zfs" \
  -ldflags="$ctrd_ldflags" -o "{out}" "$ctrd/cmd/containerd" "$ctrd/cmd/ctr" "$ctrd/cmd/containerd-shim-runc-v2"

cni=github.com/containernetworking/plugins
build "cni-plugins-$CNI_VERSION" "$tools/cni" build -trimpath \
  -ldflags="-s -w -X $cni/pkg/utils/buildversion.BuildVersion=$CNI_VERSION" -o "{out}" \
  "$cni/plugins/main/bridge" "$cni/plugins/ipam/host-local" "$cni/plugins/main/loopback" "$cni/plugins/meta/portmap"

# CoreDNS from our main.go (tools/coredns: only the plugins the tier's Corefile uses), so its name
# carries a hash of that source as well as upstream's version.
coredns_tag="$COREDNS_VERSION-$(cat "$tools/coredns/go.mod" "$tools/coredns/main.go" | sha256sum | cut -c1-12)"
build "coredns-$coredns_tag" "$tools/coredns" build -trimpath -ldflags="-s -w" -o "{out}" .
build "crictl-$CRICTL_VERSION" "$tools/crictl" build -trimpath \
  -ldflags="-s -w -X sigs.k8s.io/cri-tools/pkg/version.Version=$CRICTL_VERSION" -o "{out}" sigs.k8s.io/cri-tools/cmd/crictl
kr=github.com/cloudnativelabs/kube-router/v2
build "kube-router-$KUBE_ROUTER_VERSION" "$tools/kube-router" build -trimpath \
  -ldflags="-s -w -X $kr/pkg/version.Version=$KUBE_ROUTER_VERSION" -o "{out}" "$kr/cmd/kube-router"
# The pause binary has no upstream version; its name carries a hash of its source instead, so a
# change to main.go builds a new one.
pause_hash="$(cat "$tools/pause/go.mod" "$tools/pause/main.go" | sha256sum | cut -c1-12)"
build "pause-$pause_hash" "$tools/pause" build -trimpath -ldflags="-s -w" -o "{out}" .

# The pause and CoreDNS images: no registry is reachable, so each is the one static binary above
# on an empty base (buildah from scratch), saved as an OCI archive that node-cluster.ts imports
# into containerd (ctr images import keeps the reference). The pause image is containerd's pinned
# sandbox image; CoreDNS runs as the kube-dns Deployment. Cached like the binaries.
images="${SWITCHBOARD_CACHE:-$HOME/.cache/switchboard}/images"
mkdir -p "$images"
# image <name> <tag> <binary> [user]: localhost/switchboard/<name>:<tag> in $images/<name>-<tag>.oci.tar
image() {
  local name="$1" tag="$2" binary="$3" user="${4:-}"
  local ref="localhost/switchboard/$name:$tag" out="$images/$name-$tag.oci.tar"
  if [ -f "$out" ]; then echo "node-binaries: image $ref cached" >&2; return; fi
  command -v buildah >/dev/null || { echo "node-binaries: buildah is required for the $name image (make e2e-node installs it)" >&2; exit 1; }
  local c
  c="$(buildah from scratch)"
  buildah copy --quiet --chmod 0755 "$c" "$binary" "/$name" >/dev/null
  buildah config --entrypoint "[\"/$name\"]" ${user:+--user "$user"} --os linux --arch amd64 "$c"
  buildah commit --quiet --rm "$c" "$ref" >/dev/null
  buildah push --quiet "$ref" "oci-archive:$out.tmp:$ref" >/dev/null
  mv -f "$out.tmp" "$out"
  echo "node-binaries: image $ref saved ($(du -h "$out" | cut -f1))" >&2
}
# 65535: the user the upstream pause image runs as.
image pause "$pause_hash" "$bin/pause-$pause_hash" 65535:65535
image coredns "$coredns_tag" "$bin/coredns-$coredns_tag"

echo "$bin"
