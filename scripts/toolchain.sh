#!/usr/bin/env bash
# Makes Node 24 and pnpm available in .tools/bin without touching the machine.
# Why: the machines ship an older Node; everything we need comes from the npm registry
# (the node binary is published there as node-linux-<arch>), so no other download is required.
set -euo pipefail

NODE_VERSION="${NODE_VERSION:-24.21.0}"
PNPM_VERSION="${PNPM_VERSION:-10.34.9}"
root="$(cd "$(dirname "$0")/.." && pwd)"
tools="$root/.tools"
bin="$tools/bin"
mkdir -p "$bin"

node_major() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

ensure_node() {
  if [ -x "$bin/node" ] && [ "$(node_major "$bin/node")" -ge 24 ]; then return; fi
  local system_node
  system_node="$(PATH="${PATH//$bin:/}" command -v node || true)"
  if [ -n "$system_node" ] && [ "$(node_major "$system_node")" -ge 24 ]; then
    ln -sf "$system_node" "$bin/node"
    return
  fi
  command -v npm >/dev/null || { echo "toolchain: npm is needed once to fetch Node $NODE_VERSION" >&2; exit 1; }
  local arch
  case "$(uname -m)" in
    x86_64) arch=x64 ;;
    aarch64|arm64) arch=arm64 ;;
    *) echo "toolchain: unsupported CPU $(uname -m)" >&2; exit 1 ;;
  esac
  echo "toolchain: fetching Node $NODE_VERSION ($arch) from the npm registry" >&2
  local tmp
  tmp="$(mktemp -d)"
  (cd "$tmp" && npm pack --silent "node-linux-$arch@$NODE_VERSION" >/dev/null)
  rm -rf "$tools/node" && mkdir -p "$tools/node"
  tar -xzf "$tmp"/node-linux-*.tgz -C "$tools/node" --strip-components=1
  rm -rf "$tmp"
  ln -sf "$tools/node/bin/node" "$bin/node"
}

ensure_pnpm() {
  if [ -x "$bin/pnpm" ] && [ "$("$bin/pnpm" --version 2>/dev/null)" = "$PNPM_VERSION" ]; then return; fi
  echo "toolchain: fetching pnpm $PNPM_VERSION from the npm registry" >&2
  local tmp
  tmp="$(mktemp -d)"
  (cd "$tmp" && PATH="$bin:$PATH" npm pack --silent "pnpm@$PNPM_VERSION" >/dev/null)
  rm -rf "$tools/pnpm" && mkdir -p "$tools/pnpm"
  tar -xzf "$tmp"/pnpm-*.tgz -C "$tools/pnpm" --strip-components=1
  rm -rf "$tmp"
  cat > "$bin/pnpm" <<SH
#!/usr/bin/env bash
exec "$bin/node" "$tools/pnpm/bin/pnpm.cjs" "\$@"
SH
  chmod +x "$bin/pnpm"
}

ensure_node
ensure_pnpm
