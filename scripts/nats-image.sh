#!/usr/bin/env bash
# The bundled NATS's image for clusters that reach no registry (the real-node e2e tier): the
# chart's default, docker.io/nats:<version>-alpine, cannot be pulled here. This is the same
# nats-server, at the pin of test/e2e/tools/nats/go.mod, built from the Go module proxy by
# scripts/e2e-binaries.sh (static, CGO off), alone in an image made from scratch with buildah.
# The chart runs it as `nats-server --config /etc/nats/nats.conf` (uid 10001, read-only root,
# JetStream on the /data volume), which needs nothing else in the image.
#
# Writes $IMAGES_DIR/nats.oci.tar (default .cache/images), named
# localhost/switchboard/nats:<version>; prints that reference on its last line. Install with
#   --set nats.bundled.image.registry=localhost --set nats.bundled.image.repository=switchboard/nats \
#   --set nats.bundled.image.tag=<version> --set nats.bundled.image.pullPolicy=Never
# An archive of the same binary is kept (its sha256 in nats.oci.id).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
out="${IMAGES_DIR:-$root/.cache/images}"

command -v buildah >/dev/null || {
  echo "nats-image: installing buildah from Debian" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends buildah runc >/dev/null
}

bin="$(bash scripts/e2e-binaries.sh | tail -n 1)"
version="$(awk '$1 == "github.com/nats-io/nats-server/v2" { print $2; exit } $1 == "require" && $2 == "github.com/nats-io/nats-server/v2" { print $3; exit }' test/e2e/tools/nats/go.mod)"
binary="$bin/nats-server-$version"
[ -x "$binary" ] || { echo "nats-image: $binary missing (scripts/e2e-binaries.sh builds it)" >&2; exit 1; }
ref="localhost/switchboard/nats:${version#v}"
id="$(sha256sum "$binary" | cut -d' ' -f1):$ref"

mkdir -p "$out"
if [ -f "$out/nats.oci.tar" ] && [ "$(cat "$out/nats.oci.id" 2>/dev/null)" = "$id" ]; then
  echo "nats-image: $ref kept ($out/nats.oci.tar)" >&2
  echo "$ref"
  exit 0
fi
rm -f "$out/nats.oci.tar" "$out/nats.oci.id"
c="$(buildah from scratch)"
trap 'buildah rm "$c" >/dev/null 2>&1 || true' EXIT
buildah copy --quiet --chmod 0755 "$c" "$binary" /usr/local/bin/nats-server >/dev/null
buildah config --env PATH=/usr/local/bin --entrypoint '["nats-server"]' --cmd '' --user 10001:10001 \
  --port 4222 --port 8222 --os linux --arch "$(buildah info --format '{{.host.arch}}')" \
  --label org.opencontainers.image.description="nats-server $version (scripts/e2e-binaries.sh), made by scripts/nats-image.sh" "$c"
buildah commit --quiet --rm "$c" "$ref" >/dev/null
trap - EXIT
buildah push --quiet "$ref" "oci-archive:$out/nats.oci.tar:$ref" >/dev/null
echo "$id" >"$out/nats.oci.id"
echo "nats-image: $ref, $(($(stat -c %s "$out/nats.oci.tar") / 1000000)) MB ($out/nats.oci.tar)" >&2
echo "$ref"
