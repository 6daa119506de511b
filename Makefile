# Two commands on a fresh machine: `make run` and `make test`. Every target runs with the Node 24
# and pnpm that scripts/toolchain.sh puts in .tools/bin (fetched from the npm registry when the
# machine's own Node is older), so nothing is installed by hand.
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
export PATH := $(CURDIR)/.tools/bin:$(PATH)

STAMP_TOOLS := .tools/bin/pnpm
STAMP_DEPS := node_modules/.modules.yaml

.PHONY: all toolchain install build gows run test unit fuzz e2e e2e-binaries e2e-node chaos nats-upgrade soak node-binaries bench bench-charts typecheck lint format clean test-services peer-clients

all: build

$(STAMP_TOOLS): scripts/toolchain.sh
	./scripts/toolchain.sh

toolchain: $(STAMP_TOOLS)
	@./scripts/toolchain.sh

$(STAMP_DEPS): $(STAMP_TOOLS) pnpm-lock.yaml package.json */package.json
	pnpm install --frozen-lockfile
	@touch $(STAMP_DEPS)

install: toolchain $(STAMP_DEPS)

## The packages with tsc, then the dashboard's bundle with Vite (dashboard/dist, which the gateway serves).
build: install gows
	pnpm exec tsc -b protocol kube testkit engine-pod gateway operator bench cli
	pnpm --filter @switchboard/dashboard build

## The GOWS engine (engines/gows, Go): rebuilt when a source is newer than the binary, with the Go
## of go.mod's `go` line or newer (the machine's, else fetched once through the Go module proxy
## into ~/.cache/switchboard: scripts/go-toolchain.sh). The gateway runs it from there.
GOWS_BIN := engines/gows/bin/switchboard-gows
$(GOWS_BIN): $(shell find engines/gows -name '*.go' -not -name '*_test.go') engines/gows/go.mod engines/gows/go.sum scripts/gows-build.sh scripts/go-toolchain.sh
	bash scripts/gows-build.sh

gows: $(GOWS_BIN)

## The gateway image's ffmpeg: Debian's ffmpeg source built static with the codecs media conversion
## needs (scripts/ffmpeg-build.sh; cached in ~/.cache/switchboard/ffmpeg by Debian version).
FFMPEG_BIN := docker/bin/ffmpeg
$(FFMPEG_BIN): scripts/ffmpeg-build.sh
	bash scripts/ffmpeg-build.sh

## Every package as built, then the whole tree as one program (tsconfig.test.json: sources, tests,
## test/, configs), since vitest runs the tests from source without checking types; then the
## dashboard's browser code, a program of its own (DOM types, Preact's JSX), which Vite never checks.
typecheck: build
	pnpm exec tsc -p tsconfig.test.json
	pnpm exec tsc -p dashboard

## ESLint with typescript-eslint's typed rules (eslint.config.js) over the whole tree: any warning
## fails. Reads the sources through tsconfig.test.json, so it needs no build. Then Prettier's check
## (`make format` fixes what it finds), then knip (knip.jsonc): a file, export or dependency that
## nothing uses fails too, which ESLint cannot see across files.
lint: install
	pnpm exec eslint --max-warnings 0 .
	pnpm exec prettier --check .
	pnpm exec knip --no-progress

## Rewrites the tree in Prettier's style (.prettierrc.json; .prettierignore says what it leaves alone).
format: install
	pnpm exec prettier --write .

## Start the gateway in local mode: port 3000 (or PORT), data in ./data (or SWITCHBOARD_DATA_DIR).
run: build
	node gateway/dist/main.js

## Real services the tests start themselves, installed from Debian when missing: nats-server
## (JetStream), openssl (the e2e control plane's certificates), chromium (the WEBJS engine), ffmpeg
## (media conversion).
test-services:
	@command -v nats-server >/dev/null || [ -x /usr/sbin/nats-server ] || \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nats-server; }
	@command -v openssl >/dev/null || \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openssl; }
	@bash scripts/ensure-chromium.sh
	@bash scripts/ensure-ffmpeg.sh

## The peer product's own clients the compatibility tests drive (test/compat/clients/): its Python
## client from PyPI into a cached venv, its n8n node built from its source at a pinned commit, both
## under ~/.cache/switchboard (scripts/peer-clients.sh). One that cannot be installed does not stop
## the run: the test that drives it fails, naming it and why.
peer-clients:
	@bash scripts/peer-clients.sh >/dev/null || echo "peer-clients: not every peer client could be installed; the tests that drive them say which"

## The official Standard Webhooks library for Python (PyPI, pinned, into
## ~/.cache/switchboard/venv-standardwebhooks; scripts/webhook-verifiers.sh): the contract tests
## verify deliveries with it. One that cannot be installed does not stop the run: the test says so.
webhook-verifiers:
	@bash scripts/webhook-verifiers.sh >/dev/null || echo "webhook-verifiers: the Python standardwebhooks library could not be installed; the tests that use it say why"

## Everything: unit and integration tests, the contract suite in local mode, the fuzz pass, the
## e2e suite, then the real-node tier. Each part runs even when an earlier one failed, so one run reports every failure;
## the last line is the plain total over the vitest reports ("Tests: N passed, N failed"), and
## JUnit files land in test-results/ for CI tools that read those.
test: build test-services e2e-binaries
	@rm -f .cache/vitest-unit.json .cache/vitest-e2e.json .cache/vitest-e2e-node.json
	@status=0; \
	  $(MAKE) --no-print-directory unit || status=1; \
	  $(MAKE) --no-print-directory fuzz || status=1; \
	  $(MAKE) --no-print-directory e2e || status=1; \
	  $(MAKE) --no-print-directory e2e-node || status=1; \
	  node scripts/test-summary.mjs .cache/vitest-unit.json .cache/vitest-e2e.json .cache/vitest-e2e-node.json || status=1; \
	  exit $$status

## Unit and integration tests (real server, HTTP, websocket and webhook receivers, SQLite, NATS)
## and the REST contract suite against local mode.
unit: build test-services peer-clients webhook-verifiers
	@mkdir -p .cache
	pnpm exec vitest run --reporter=default --reporter=json --outputFile.json=.cache/vitest-unit.json \
	  --reporter=junit --outputFile.junit=test-results/unit.xml \
	  && status=0 || status=$$?; node scripts/test-summary.mjs .cache/vitest-unit.json; exit $$status

## Schemathesis (pinned, from PyPI into ~/.cache/switchboard/venv-schemathesis) over the OpenAPI
## document of a real local gateway: no 5xx, responses match their schemas and documented
## statuses. A fixed seed, a few minutes on 2 cores (scripts/fuzz.sh).
fuzz: build
	bash scripts/fuzz.sh

## etcd, kube-apiserver, kubectl and nats-server, built once from the Go module proxy into
## ~/.cache/switchboard/bin (a cold build takes about 5-8 minutes on 2 cores).
e2e-binaries:
	bash scripts/e2e-binaries.sh >/dev/null

## Cluster mode end to end: real etcd, kube-apiserver and NATS; operator, gateway, engine pods
## (run by the test node agent); the contract suite against cluster mode.
e2e: build test-services e2e-binaries peer-clients webhook-verifiers
	@mkdir -p .cache
	pnpm exec vitest run --config test/e2e/vitest.config.ts --reporter=default --reporter=json --outputFile.json=.cache/vitest-e2e.json \
	  --reporter=junit --outputFile.junit=test-results/e2e.xml \
	  && status=0 || status=$$?; node scripts/test-summary.mjs .cache/vitest-e2e.json; exit $$status

## The node components of the real-node tier: Debian's runc, nftables, conntrack, iproute2,
## buildah, iptables and ipset (apt-get, when missing), then kube-controller-manager, kube-scheduler,
## kubelet, kube-proxy, containerd, the CNI plugins, CoreDNS, crictl, kube-router and the pause and
## CoreDNS images, built
## once from the Go module proxy into ~/.cache/switchboard (cold: see scripts/node-binaries.sh).
node-binaries:
	bash scripts/ensure-node-packages.sh
	bash scripts/node-binaries.sh >/dev/null

## The real-node tier (test/e2e-node/): a one-node cluster of real components on this machine
## (root needed) runs the images of `make images` as containers; the chart installed with helm.
e2e-node: build test-services e2e-binaries node-binaries images
	@mkdir -p .cache
	pnpm exec vitest run --config test/e2e-node/vitest.config.ts --reporter=default --reporter=json --outputFile.json=.cache/vitest-e2e-node.json \
	  --reporter=junit --outputFile.junit=test-results/e2e-node.xml \
	  && status=0 || status=$$?; node scripts/test-summary.mjs .cache/vitest-e2e-node.json; exit $$status

## The chaos tier alone, every fault CHAOS_REPEAT times (3 unless set), on the real node, with the
## steady load of test/e2e-node/chaos.test.ts (make e2e-node runs each fault once). One fault:
## CHAOS_FAULTS=gateway-kill make chaos; the release's values: CHAOS_VALUES=<json file>.
chaos: build test-services e2e-binaries node-binaries images
	CHAOS_REPEAT=$${CHAOS_REPEAT:-3} pnpm exec vitest run --config test/e2e-node/vitest.config.ts test/e2e-node/chaos.test.ts

## helm upgrade from one NATS server to three on the real node with paired sessions
## (test/e2e-node/nats-cluster.test.ts; not in make test until the problems it found are fixed:
## docs/operations.md, "From 1 server to 3 on a running release").
nats-upgrade: build test-services e2e-binaries node-binaries images
	SWITCHBOARD_NATS_UPGRADE=1 pnpm exec vitest run --config test/e2e-node/vitest.config.ts test/e2e-node/nats-cluster.test.ts

## The soak (not in make test): 30 minutes of the chaos tier's load with a fault every 5 minutes,
## every component's RSS and open fds sampled each minute (>10 % growth from minute 5 fails), the
## plot in docs/soak.svg. CHAOS_SOAK_MINUTES, _FAULT_MINUTES and _SAMPLE_SECONDS shorten it.
soak: build test-services e2e-binaries node-binaries images
	CHAOS_SOAK_MINUTES=$${CHAOS_SOAK_MINUTES:-30} pnpm exec vitest run --config test/e2e-node/vitest.config.ts test/e2e-node/soak.test.ts

## Benchmarks: ratios against a baseline measured in the same run; never fails on absolute times.
bench: build
	node bench/dist/all.js

## The charts of docs/performance.md from bench/results/latest.json (make bench ends with them too).
bench-charts: build
	node bench/dist/charts.js

clean:
	rm -rf node_modules */node_modules */dist test/*/node_modules engines/gows/bin docker/bin

## Every image of docker/Dockerfile, built without a Docker daemon: Debian's buildah (installed
## with apt-get when missing), one OCI archive per image in .cache/images, sizes printed, then the
## images checked with podman (test/images/). NODE_IMAGE=node:24-slim builds on a registry's base;
## without it a local Debian + Node 24 base is made once and cached in ~/.cache/switchboard/images.
## See scripts/images.sh and docker/README.md.
.PHONY: images
images: install gows $(FFMPEG_BIN)
	bash scripts/images.sh
	pnpm exec vitest run --config test/images/vitest.config.ts

## For machines with a container engine (docker or podman) and kind (not the ones `make test`
## runs on: they have none). Checks for both, and for buildah and podman (or apt-get), first,
## before installing or building anything; then builds the images as `make images` does and loads
## those same OCI archives into a kind cluster (`kind load image-archive`), installs the chart
## into a namespace that enforces the restricted Pod Security standard, and runs the kind
## scenarios (test/e2e/chart/kind/). See scripts/kind-up.sh for its settings and docs/operations.md.
.PHONY: kind-up
kind-up:
	bash scripts/kind-up.sh --check
	$(MAKE) install e2e-binaries
	bash scripts/kind-up.sh
