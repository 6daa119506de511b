#!/usr/bin/env bash
# make kind-up: the platform team's path on a real (kind) cluster, for machines with Docker or podman.
#   1. builds the images as `make images` does (scripts/images.sh: buildah, one OCI archive per
#      image in IMAGES_DIR, default .cache/images) and loads those same archives into a kind
#      cluster (`kind load image-archive`), creating the cluster when missing;
#   2. creates the namespace with the restricted Pod Security standard enforced;
#   3. applies the chart's CRDs (the upgrade path of docs/operations.md) and installs the chart,
#      waiting until every pod is ready;
#   4. runs the kind scenarios (test/e2e/chart/kind/) against it.
# It needs a running container engine (docker, or podman with kind's podman provider), kind on
# PATH, and buildah and podman for the images (or apt-get, with which scripts/images.sh installs
# them), and checks for all of them before it builds anything (`kind-up.sh --check` does only
# that; `make kind-up` runs it before installing packages and building helm and kubectl).
# `kind-up.sh --load` only loads the archives an earlier `make images` wrote into the cluster
# (after a rebuild, say), and stops. helm and kubectl are the ones scripts/e2e-binaries.sh
# builds. The machines that run `make test` have no container engine, so this target has never
# run there: it is written for yours.
#
# Settings (environment): KIND_CLUSTER (switchboard), KIND_NAMESPACE (switchboard),
# KIND_RELEASE (sb), KIND_IMAGE_REGISTRY (localhost/switchboard), KIND_IMAGE_TAG (dev: the
# names make images gives), KIND_HELM_ARGS (more helm arguments, e.g. "--set gateway.replicas=3"),
# IMAGES_DIR and NODE_IMAGE (as scripts/images.sh reads them).
# Remove everything with: kind delete cluster --name "$KIND_CLUSTER"
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
cluster="${KIND_CLUSTER:-switchboard}"
namespace="${KIND_NAMESPACE:-switchboard}"
release="${KIND_RELEASE:-sb}"
registry="${KIND_IMAGE_REGISTRY:-localhost/switchboard}"
tag="${KIND_IMAGE_TAG:-dev}"
images_dir="${IMAGES_DIR:-$root/.cache/images}"

say() { echo "kind-up: $*" >&2; }
die() { say "$*"; exit 1; }

# 0. What nothing below can do without: a container engine that answers, and kind.
engine=""
for candidate in docker podman; do
  if command -v "$candidate" >/dev/null && "$candidate" info >/dev/null 2>&1; then engine="$candidate"; break; fi
done
if [ -z "$engine" ]; then
  if command -v docker >/dev/null || command -v podman >/dev/null; then
    die "no container engine answers (docker info and podman info failed): start Docker or podman"
  fi
  die "a container engine is required: docker or podman (this machine has neither: kind-up cannot run here)"
fi
command -v kind >/dev/null || die "kind is required: https://kind.sigs.k8s.io (or: go install sigs.k8s.io/kind@latest)"
if [ "${1:-}" != --load ] && ! { command -v buildah >/dev/null && command -v podman >/dev/null; } && ! command -v apt-get >/dev/null; then
  die "buildah and podman are required to build the images as make images does (scripts/images.sh; on Debian or Ubuntu it installs them with apt-get): install both"
fi
# kind runs its nodes in podman only when asked to.
[ "$engine" = podman ] && export KIND_EXPERIMENTAL_PROVIDER=podman
say "container engine: $engine; kind: $(command -v kind)"
[ "${1:-}" = --check ] && exit 0

# The archives of one build: each <target>.oci.tar whose image is $registry/<target>:$tag.
archives() {
  local id
  for id in "$images_dir"/*.oci.id; do
    [ -f "$id" ] || continue
    case "$(cat "$id")" in *":$registry/$(basename "$id" .oci.id):$tag") echo "${id%.id}.tar" ;; esac
  done
}

# 1. The images, as make images builds them, and those same OCI archives loaded into the cluster
# (engine pods use IfNotPresent, so the loaded ones run; nothing is pulled).
if [ "${1:-}" != --load ]; then
  say "building the images with scripts/images.sh (the archives go to $images_dir)"
  IMAGE_PREFIX="$registry" IMAGE_TAG="$tag" IMAGES_DIR="$images_dir" bash scripts/images.sh
fi
mapfile -t loaded < <(archives)
[ "${#loaded[@]}" -gt 0 ] || die "no image archives of $registry/*:$tag in $images_dir: run make images (IMAGE_PREFIX=$registry IMAGE_TAG=$tag)"
if ! kind get clusters 2>/dev/null | grep -qx "$cluster"; then
  say "creating kind cluster $cluster"
  kind create cluster --name "$cluster" --wait 180s
fi
for archive in "${loaded[@]}"; do
  say "loading $archive into $cluster"
  kind load image-archive --name "$cluster" "$archive"
done
[ "${1:-}" = --load ] && exit 0

# The pinned helm and kubectl, built from the Go module proxy like the e2e suite's.
bin="$(bash scripts/e2e-binaries.sh | tail -n 1)"
req_version() { awk -v m="$2" '$1 == m { print $2; exit } $1 == "require" && $2 == m { print $3; exit }' "$1"; }
helm="$bin/helm-$(req_version test/e2e/tools/helm/go.mod helm.sh/helm/v3)"
kubectl="$bin/kubectl-$(req_version test/e2e/tools/kube/go.mod k8s.io/kubernetes)"
[ -x "$helm" ] && [ -x "$kubectl" ] || die "helm or kubectl missing in $bin"
kubeconfig="$(mktemp)"
trap 'rm -f "$kubeconfig"' EXIT
kind get kubeconfig --name "$cluster" >"$kubeconfig"

k() { "$kubectl" --kubeconfig "$kubeconfig" "$@"; }

# 2. The namespace, with the restricted standard enforced on every pod (engine pods included).
k get namespace "$namespace" >/dev/null 2>&1 || k create namespace "$namespace"
k label --overwrite namespace "$namespace" \
  pod-security.kubernetes.io/enforce=restricted \
  pod-security.kubernetes.io/warn=restricted \
  pod-security.kubernetes.io/audit=restricted

# 3. CRDs first (Helm installs crds/ once and never upgrades them), then the chart.
k apply --server-side --force-conflicts -f charts/switchboard/crds/
k wait --for=condition=Established --timeout=60s crd/messagingsessions.switchboard.dev
# shellcheck disable=SC2086 # KIND_HELM_ARGS is a list of arguments on purpose
"$helm" --kubeconfig "$kubeconfig" upgrade --install "$release" charts/switchboard \
  --namespace "$namespace" \
  --set image.registry="$registry" --set image.tag="$tag" \
  --wait --timeout 10m ${KIND_HELM_ARGS:-}

# 4. The scenarios: a paired session through the API, one from examples/, a leader failover, deletes.
say "running the kind scenarios"
SWITCHBOARD_KIND_KUBECONFIG="$kubeconfig" \
SWITCHBOARD_KIND_NAMESPACE="$namespace" \
SWITCHBOARD_KIND_RELEASE="$release" \
SWITCHBOARD_KIND_KUBECTL="$kubectl" \
  pnpm exec vitest run --config test/e2e/chart/kind/vitest.config.ts

say "done. The cluster stays up: kind get kubeconfig --name $cluster > kind.kubeconfig"
say "remove it with: kind delete cluster --name $cluster"
