# Sourced by scripts/e2e-binaries.sh and scripts/node-binaries.sh: what both need to build the
# pinned Go tools of test/e2e/tools into the cache. The caller sets `tag` (its log prefix) first.
# Defines: $root, $tools, $bin, $GO, req_version, build, kube_ldflags.

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
tools="$root/test/e2e/tools"
bin="${SWITCHBOARD_CACHE:-$HOME/.cache/switchboard}/bin"

GO="$(command -v go || true)"
[ -n "$GO" ] || GO=/usr/local/go/bin/go
[ -x "$GO" ] || { echo "$tag: Go is required (go on PATH or /usr/local/go/bin/go)" >&2; exit 1; }

# req_version <go.mod> <module>: the pinned version. The go.mod files are the single source of
# truth for the pins (control-plane.ts and node-cluster.ts read them too).
req_version() { awk -v m="$2" '$1 == m { print $2; exit } $1 == "require" && $2 == m { print $3; exit }' "$1"; }

mkdir -p "$bin"
# -buildvcs=false: the tool modules sit inside this git repo, whose state says nothing about them.
# -mod=readonly: go.sum is committed and complete, so a build never rewrites it.
export GOFLAGS="-mod=readonly -buildvcs=false"
export CGO_ENABLED=0 # static binaries, no C toolchain needed

# build <name> <module dir> <go build args...>: builds into a temp dir ("{out}" in the args), then
# renames, so an interrupted or concurrent run never leaves a half-written result under the final
# name. <name> is a file when the build writes one binary, a directory when it writes several.
build() {
  local name="$1" dir="$2"; shift 2
  local out="$bin/$name"
  if [ -e "$out" ]; then echo "$tag: $name cached" >&2; return; fi
  echo "$tag: building $name (a cold build of the Kubernetes ones takes minutes)" >&2
  local tmp start
  tmp="$(mktemp -d "$bin/.build.XXXXXX")"
  start=$SECONDS
  (cd "$dir" && "$GO" "${@//\{out\}/$tmp/}") >&2 || { rm -rf "$tmp"; echo "$tag: $name failed" >&2; exit 1; }
  if [ "$(ls "$tmp" | wc -l)" = 1 ]; then mv -f "$tmp"/* "$out"; rmdir "$tmp"; else chmod 755 "$tmp"; mv -f "$tmp" "$out"; fi
  echo "$tag: built $name in $((SECONDS - start))s ($(du -sh "$out" | cut -f1))" >&2
}

# kube_ldflags <version>: every Kubernetes binary reports this version (/version, kubectl version,
# the node's kubeletVersion), as release builds do; without it they say v0.0.0-master and version
# skew checks misfire.
kube_ldflags() {
  local version="$1" flags="-s -w" minor pkg
  minor="${version#v1.}"; minor="${minor%%.*}"
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    flags+=" -X $pkg.gitVersion=$version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
  done
  echo "$flags"
}
