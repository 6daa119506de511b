#!/usr/bin/env bash
# Installs the Debian packages the real-node tier (test/e2e-node/) runs beside the binaries that
# scripts/node-binaries.sh builds: runc (containerd's OCI runtime), nftables (the `nft` command
# kube-proxy's nftables mode drives), conntrack (kube-proxy clears stale UDP entries with it),
# iproute2 (`ip`: the bridge, blackhole routes), buildah (the pause and CoreDNS images), iptables
# and ipset (kube-router's network policy controller writes its rules through both). Like
# scripts/ensure-chromium.sh: nothing is installed when all are already there.
set -euo pipefail

missing=()
command -v runc >/dev/null || missing+=(runc)
command -v nft >/dev/null || [ -x /usr/sbin/nft ] || missing+=(nftables)
command -v conntrack >/dev/null || [ -x /usr/sbin/conntrack ] || missing+=(conntrack)
command -v ip >/dev/null || [ -x /usr/sbin/ip ] || missing+=(iproute2)
command -v buildah >/dev/null || missing+=(buildah)
command -v iptables >/dev/null || [ -x /usr/sbin/iptables ] || missing+=(iptables)
command -v ipset >/dev/null || [ -x /usr/sbin/ipset ] || missing+=(ipset)
[ ${#missing[@]} = 0 ] && exit 0

echo "ensure-node-packages: installing ${missing[*]}" >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
