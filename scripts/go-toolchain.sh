#!/usr/bin/env bash
# Prints the path of a `go` at least as new as the `go` line of the go.mod given (default
# engines/gows/go.mod): the machine's (PATH, then /usr/local/go), or else the toolchain fetched once
# through the Go module proxy, as Go itself fetches toolchains (module golang.org/toolchain,
# version v0.0.1-go<version>.<os>-<arch>), into ~/.cache/switchboard/go-<version>.
# stdout: only the path. Progress goes to stderr.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
gomod="${1:-$root/engines/gows/go.mod}"
want="$(awk '$1 == "go" { print $2; exit }' "$gomod")"
[ -n "$want" ] || { echo "go-toolchain: no go line in $gomod" >&2; exit 1; }

# version_ge A B: A >= B, for Go versions such as 1.26.8 or 1.26.
version_ge() { [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -1)" = "$2" ]; }

for candidate in "$(command -v go || true)" /usr/local/go/bin/go; do
  [ -n "$candidate" ] && [ -x "$candidate" ] || continue
  have="$(GOTOOLCHAIN=local "$candidate" env GOVERSION 2>/dev/null || true)"
  have="${have#go}"
  if [ -n "$have" ] && version_ge "$have" "$want"; then echo "$candidate"; exit 0; fi
done

cache="${SWITCHBOARD_CACHE:-$HOME/.cache/switchboard}"
dir="$cache/go-$want"
if [ ! -x "$dir/bin/go" ]; then
  case "$(uname -m)" in x86_64) arch=amd64 ;; aarch64 | arm64) arch=arm64 ;; *) echo "go-toolchain: no Go toolchain for $(uname -m)" >&2; exit 1 ;; esac
  os="$(uname -s | tr '[:upper:]' '[:lower:]')"
  proxy="${GOPROXY:-https://proxy.golang.org}"; proxy="${proxy%%,*}"; proxy="${proxy%%|*}"
  [ "$proxy" != direct ] && [ "$proxy" != off ] || proxy=https://proxy.golang.org
  version="v0.0.1-go$want.$os-$arch"
  echo "go-toolchain: Go $want not found (or older); fetching golang.org/toolchain@$version from the module proxy" >&2
  tmp="$(mktemp -d "${cache}/.go-toolchain.XXXXXX" 2>/dev/null || { mkdir -p "$cache" && mktemp -d "${cache}/.go-toolchain.XXXXXX"; })"
  trap 'rm -rf "$tmp"' EXIT
  curl -fsSL "$proxy/golang.org/toolchain/@v/$version.zip" -o "$tmp/go.zip"
  (cd "$tmp" && python3 -m zipfile -e go.zip unpacked)
  src="$tmp/unpacked/golang.org/toolchain@$version"
  chmod -R u+w "$src" && find "$src/bin" "$src/pkg/tool" -type f -exec chmod +x {} +
  rm -rf "$dir" && mv "$src" "$dir"
fi
echo "$dir/bin/go"
