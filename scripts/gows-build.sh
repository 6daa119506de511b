#!/usr/bin/env bash
# Builds the GOWS engine (engines/gows, whatsmeow in Go) into engines/gows/bin/switchboard-gows,
# where the gateway looks for it (SWITCHBOARD_GOWS_BIN overrides). Static (no cgo), so the same
# binary runs in local mode and in an image on a minimal base. Go comes from scripts/go-toolchain.sh;
# Go's own build cache (GOCACHE) and module cache make a rebuild of unchanged sources quick, and
# the Makefile runs this only when a source is newer than the binary.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
GO="$(bash "$root/scripts/go-toolchain.sh" "$root/engines/gows/go.mod")"
out="$root/engines/gows/bin/switchboard-gows"
mkdir -p "$(dirname "$out")"
start=$SECONDS
# -mod=readonly: go.sum is committed and complete. -buildvcs=false: the repo's state says nothing
# about the binary. A temp name, then a rename: a build cut short leaves no half-written binary.
# main.version: `environment.version` of the events a `nats` engine pod makes, the engine pod package's version.
version="$(sed -nE 's/^  "version": "([^"]+)".*/\1/p' "$root/engine-pod/package.json")"
(cd "$root/engines/gows" && CGO_ENABLED=0 GOTOOLCHAIN=local GOFLAGS="-mod=readonly -buildvcs=false" \
  "$GO" build -trimpath -ldflags="-s -w -X main.version=$version" -o "$out.tmp" ./cmd/switchboard-gows)
mv -f "$out.tmp" "$out"
echo "gows: built $out in $((SECONDS - start))s ($(du -h "$out" | cut -f1))" >&2
