#!/usr/bin/env bash
# `make images`: builds every target of docker/Dockerfile with Debian's buildah, without a Docker
# daemon or a registry, saves each image as an OCI archive and prints its size.
#
# Why this way: the machines that build Switchboard here reach no container registry, so the
# Dockerfile's default base (node:24-slim) cannot be pulled. When NODE_IMAGE is not given, the base
# is made locally instead: a Debian root file system from mmdebstrap (Debian's packages, from the
# apt mirror this machine is configured for) plus the Node 24 that scripts/toolchain.sh fetched
# into .tools; the build stage's base has the pinned pnpm as well. Both bases are cached, keyed by
# their inputs, in the local containers storage and as OCI archives in ~/.cache/switchboard/images,
# so a second run reuses them. Users with a registry pass NODE_IMAGE=node:24-slim (or build with
# `docker build`, which uses it by default).
#
# Environment:
#   NODE_IMAGE    base of the runtime images (and of the build stage unless BUILD_IMAGE is given)
#   BUILD_IMAGE   base of the build stage; needs node, and pnpm of package.json's version or npm
#   IMAGE_PREFIX  image names are $IMAGE_PREFIX/<target>:$IMAGE_TAG (default localhost/switchboard)
#   IMAGE_TAG     (default dev)
#   IMAGES_DIR    where the OCI archives go (default .cache/images in the repository)
#   TARGETS       which targets (default: every target of docker/Dockerfile)
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
export PATH="$root/.tools/bin:$PATH"

prefix="${IMAGE_PREFIX:-localhost/switchboard}"
tag="${IMAGE_TAG:-dev}"
out="${IMAGES_DIR:-$root/.cache/images}"
base_cache="${XDG_CACHE_HOME:-$HOME/.cache}/switchboard/images"
suite=bookworm
# Every FROM ... AS <name> stage that is an image (not build, runtime or gows-ca).
targets="${TARGETS:-$(sed -nE 's/^FROM[[:space:]]+[^[:space:]]+[[:space:]]+AS[[:space:]]+([a-z-]+).*/\1/ip' docker/Dockerfile | grep -vxE 'build|runtime|gows-ca' | tr '\n' ' ')}"

log() { echo "images: $*" >&2; }

# ---- tools: buildah (builds), podman (saves, loads and runs), runc, mmdebstrap -----------------
# runc, not crun: crun 1.8 refuses this machine's cgroups (v1 with a v2 hierarchy beside them).
ensure_tools() {
  local missing=()
  command -v buildah >/dev/null || missing+=(buildah)
  command -v podman >/dev/null || missing+=(podman)
  command -v runc >/dev/null || [ -x /usr/sbin/runc ] || missing+=(runc)
  if [ -z "${NODE_IMAGE:-}" ]; then command -v mmdebstrap >/dev/null || missing+=(mmdebstrap); fi
  if [ "${#missing[@]}" -gt 0 ]; then
    log "installing ${missing[*]} from Debian"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
}

# A runtime must not raise RLIMIT_NOFILE or RLIMIT_NPROC above the hard limits (the sandbox lacks
# CAP_SYS_RESOURCE), so RUN steps get explicit ones: the hard nofile limit, and buildah's default
# nproc (32768) or the hard limit when lower. (buildah lowers its own nproc limit to that default
# before it starts runc: asking for the hard limit there fails with "error setting rlimit type 6".)
ulimits=()
secrets=()
limit_flags() {
  local n u
  n="$(ulimit -Hn)"
  u="$(ulimit -Hu)"
  [ "$n" != unlimited ] && ulimits+=(--ulimit "nofile=$n:$n")
  if [ "$u" = unlimited ] || [ "$u" -gt 32768 ]; then u=32768; fi
  ulimits+=(--ulimit "nproc=$u:$u")
}

# ---- the local bases -------------------------------------------------------------------------
# The apt sources of the Debian mirror this machine uses (deb822 or one-line format).
debian_sources() {
  local f
  for f in /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list /etc/apt/sources.list; do
    [ -f "$f" ] && grep -qE '^[^#]*(debian\.org|/debian)' "$f" && grep -qE "\b$suite\b" "$f" && { echo "$f"; return; }
  done
  echo "images: no apt source for Debian $suite in /etc/apt/sources.list*" >&2
  exit 1
}

# Slim like Debian's own container images: no manuals, docs or translations (the settings stay in
# the image, so later apt-get installs skip them too). usr-is-merged instead of usrmerge, which
# mmdebstrap's essential stage picks and which pulls in perl (48 MB): purged once the other is in.
mmdebstrap_args=(--variant=minbase --include=passwd,usr-is-merged
  --customize-hook='chroot "$1" env DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq usrmerge perl perl-modules-5.36 libperl5.36 libfile-find-rule-perl libnumber-compare-perl libtext-glob-perl libgdbm-compat4 libgdbm6 >/dev/null'
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*'
  --dpkgopt='path-include=/usr/share/doc/*/copyright' --dpkgopt='path-exclude=/usr/share/locale/*'
  --dpkgopt='path-exclude=/usr/share/info/*')

# Loads a cached archive into the containers storage under the name it was saved with.
load_archive() { podman load -q -i "$1" >/dev/null; podman image exists "$2"; }

make_bases() {
  local sources node pnpm_dir key node_ref build_ref
  sources="$(debian_sources)"
  node="$(readlink -f .tools/bin/node)"
  pnpm_dir="$root/.tools/pnpm"
  [ -x "$node" ] && [ -f "$pnpm_dir/bin/pnpm.cjs" ] || { log "run scripts/toolchain.sh first (make toolchain)"; exit 1; }
  key="$( { echo v1 "$suite" "${mmdebstrap_args[*]}"; cat "$sources"; sha256sum "$node" | cut -d' ' -f1;
            cat "$pnpm_dir/package.json"; } | sha256sum | cut -c1-16)"
  node_ref="localhost/switchboard-base/node:$key"
  build_ref="localhost/switchboard-base/node-build:$key"
  NODE_IMAGE="$node_ref"
  BUILD_IMAGE="$build_ref"
  mkdir -p "$base_cache"
  local node_tar="$base_cache/node-$key.oci.tar" build_tar="$base_cache/node-build-$key.oci.tar"
  if podman image exists "$node_ref" && podman image exists "$build_ref"; then
    log "base $key: in the containers storage"
    return
  fi
  if [ -f "$node_tar" ] && [ -f "$build_tar" ] && load_archive "$node_tar" "$node_ref" && load_archive "$build_tar" "$build_ref"; then
    log "base $key: loaded from $base_cache"
    return
  fi

  log "base $key: Debian $suite (mmdebstrap, sources from $sources) + Node $("$node" --version)"
  local tmp c
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  mmdebstrap --quiet "${mmdebstrap_args[@]}" "$suite" "$tmp/rootfs.tar" "$sources"
  # The node binary without its debug information (about 18 MB): nothing reads it at run time.
  if command -v strip >/dev/null; then strip -o "$tmp/node" "$node"; else cp "$node" "$tmp/node"; fi
  chmod 755 "$tmp/node"

  c="$(buildah from scratch)"
  buildah add --quiet "$c" "$tmp/rootfs.tar" / >/dev/null
  buildah copy --quiet "$c" "$tmp/node" /usr/local/bin/node >/dev/null
  buildah config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --env NODE_VERSION="$("$node" -p 'process.versions.node')" --cmd node --os linux --arch "$(buildah info --format '{{.host.arch}}')" \
    --label org.opencontainers.image.description="Debian $suite (mmdebstrap) + Node $("$node" --version), made by scripts/images.sh" "$c"
  buildah commit --quiet --rm "$c" "$node_ref" >/dev/null

  # The build stage's base: the same, plus the pnpm of .tools (the Dockerfile installs pnpm with
  # npm only when the base has no pnpm of the pinned version; the npm registry's node binary
  # package has no npm).
  printf '#!/bin/sh\nexec /usr/local/bin/node /usr/local/lib/pnpm/bin/pnpm.cjs "$@"\n' > "$tmp/pnpm"
  chmod 755 "$tmp/pnpm"
  c="$(buildah from "$node_ref")"
  buildah copy --quiet "$c" "$pnpm_dir" /usr/local/lib/pnpm >/dev/null
  buildah copy --quiet "$c" "$tmp/pnpm" /usr/local/bin/pnpm >/dev/null
  buildah commit --quiet --rm "$c" "$build_ref" >/dev/null

  rm -f "$base_cache"/node-*.oci.tar
  buildah push --quiet "$node_ref" "oci-archive:$node_tar:$node_ref" >/dev/null
  buildah push --quiet "$build_ref" "oci-archive:$build_tar:$build_ref" >/dev/null
  rm -rf "$tmp"
  trap - EXIT
}

# ---- the images ------------------------------------------------------------------------------
mb() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1000000 }'; }

# Every build leaves the images of the steps it did not reuse (the images a tag pointed to before,
# the build stage of changed sources) untagged in the containers storage: about 3 GB per run, which
# filled this machine's disk after a day of runs. The step images of each run are recorded (in the
# bases' cache); here, the untagged ones an earlier run made that this run ($1: its step ids) did
# not use are removed, parents after children. Kept: everything this run made or took from its cache
# (so the next run's cache is this one's), every image with a name, and images not built here.
prune_unused() {
  local used="$1" record="$base_cache/built-steps" id removed=0 pass
  mkdir -p "$base_cache"
  touch "$record"
  for pass in 1 2 3 4 5 6 7 8; do
    local before=$removed
    for id in $(buildah images --all --filter dangling=true --quiet 2>/dev/null); do
      grep -qx "${id:0:11}" "$used" && continue
      grep -qx "${id:0:11}" "$record" || continue
      buildah rmi "$id" >/dev/null 2>&1 && removed=$((removed + 1))
    done
    [ "$removed" -eq "$before" ] && break
  done
  # What this run used, and what an earlier run made that is still there (a parent of a kept image).
  { cat "$used"; buildah images --all --quiet 2>/dev/null | cut -c1-11 | grep -xFf "$record" || true; } | sort -u >"$record.new"
  mv "$record.new" "$record"
  [ "$removed" -eq 0 ] || log "removed $removed untagged images of earlier builds that this one did not use"
}

main() {
  ensure_tools
  limit_flags
  export BUILDAH_RUNTIME=runc
  if [ -z "${NODE_IMAGE:-}" ]; then make_bases; fi
  BUILD_IMAGE="${BUILD_IMAGE:-$NODE_IMAGE}"
  # A registry behind a TLS-inspecting proxy: npm's configured CA bundle, for the build stage.
  local ca
  secrets=()
  ca="$(pnpm config get cafile 2>/dev/null || true)"
  [ -n "$ca" ] && [ "$ca" != undefined ] && [ -f "$ca" ] && secrets+=(--secret "id=npm-ca,src=$ca")
  [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -f "$NODE_EXTRA_CA_CERTS" ] && secrets=(--secret "id=npm-ca,src=$NODE_EXTRA_CA_CERTS")
  mkdir -p "$out"
  # The gateway image's static ffmpeg (make images has it built already; kind-up.sh may not).
  case " $targets " in *" gateway "*) [ -x "$root/docker/bin/ffmpeg" ] || bash "$root/scripts/ffmpeg-build.sh" ;; esac
  local t ref steps
  steps="$(mktemp)"
  for t in $targets; do
    ref="$prefix/$t:$tag"
    log "building $ref (base $NODE_IMAGE)"
    # --network host: the build stage's pnpm install and the browser image's apt-get reach the
    # registry and mirror this machine is configured for; --layers: a second run reuses each step.
    # Its output names each step's image, made or reused from the cache: kept by prune_unused.
    buildah bud --layers --network host "${ulimits[@]}" "${secrets[@]}" \
      --build-arg NODE_IMAGE="$NODE_IMAGE" --build-arg BUILD_IMAGE="$BUILD_IMAGE" \
      --ignorefile docker/Dockerfile.dockerignore -f docker/Dockerfile --target "$t" -t "$ref" . >"$steps.out" 2>&1 ||
      { cat "$steps.out" >&2; exit 1; }
    grep -oE '^--> (Using cache )?[0-9a-f]{11,}' "$steps.out" | grep -oE '[0-9a-f]{11,}$' | cut -c1-11 >>"$steps" || true
    # Gzip-compressed layers, named by the full reference (ctr images import, kind load
    # image-archive and podman load keep that name). Compressing is most of a warm run's time, so
    # an archive of the same image ID (in <target>.oci.id) is kept.
    local id
    id="$(podman image inspect --format '{{.Id}}' "$ref")"
    if [ -f "$out/$t.oci.tar" ] && [ "$(cat "$out/$t.oci.id" 2>/dev/null)" = "$id:$ref" ]; then continue; fi
    rm -f "$out/$t.oci.tar" "$out/$t.oci.id"
    buildah push --quiet "$ref" "oci-archive:$out/$t.oci.tar:$ref" >/dev/null
    echo "$id:$ref" > "$out/$t.oci.id"
  done
  # Only a run of every target knows what the next one will want from the cache.
  if [ -z "${TARGETS:-}" ]; then prune_unused "$steps"; else mkdir -p "$base_cache" && cat "$steps" >>"$base_cache/built-steps"; fi
  rm -f "$steps" "$steps.out"
  printf '%-16s %-44s %12s %14s\n' image reference 'size (MB)' 'archive (MB)'
  for t in $targets; do
    ref="$prefix/$t:$tag"
    printf '%-16s %-44s %12s %14s\n' "$t" "$ref" "$(mb "$(podman image inspect --format '{{.Size}}' "$ref")")" \
      "$(mb "$(stat -c %s "$out/$t.oci.tar")")"
  done
  echo "OCI archives in $out"
}

main "$@"
