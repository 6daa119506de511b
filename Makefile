# Two commands on a fresh machine: `make run` and `make test`. Every target runs with the Node 24
# and pnpm that scripts/toolchain.sh puts in .tools/bin (fetched from the npm registry when the
# machine's own Node is older), so nothing is installed by hand.
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
export PATH := $(CURDIR)/.tools/bin:$(PATH)

STAMP_TOOLS := .tools/bin/pnpm
STAMP_DEPS := node_modules/.modules.yaml

.PHONY: all toolchain install build run test bench typecheck clean test-services

all: build

$(STAMP_TOOLS): scripts/toolchain.sh
	./scripts/toolchain.sh

toolchain: $(STAMP_TOOLS)
	@./scripts/toolchain.sh

$(STAMP_DEPS): $(STAMP_TOOLS) pnpm-lock.yaml package.json */package.json
	pnpm install --frozen-lockfile
	@touch $(STAMP_DEPS)

install: toolchain $(STAMP_DEPS)

build: install
	pnpm exec tsc -b protocol testkit engine-pod gateway operator bench

typecheck: build

## Start the gateway in local mode: port 3000 (or PORT), data in ./data (or SWITCHBOARD_DATA_DIR).
run: build
	node gateway/dist/main.js

## Real services the tests start themselves: Debian's nats-server (JetStream) when missing.
test-services:
	@command -v nats-server >/dev/null || [ -x /usr/sbin/nats-server ] || \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nats-server; }

## Unit and integration tests: real server, real HTTP, websocket and webhook receivers, SQLite files, NATS.
test: build test-services
	@mkdir -p .cache
	pnpm exec vitest run --reporter=default --reporter=json --outputFile.json=.cache/vitest.json; \
	  status=$$?; node scripts/test-summary.mjs .cache/vitest.json; exit $$status

## Benchmarks: ratios against a baseline measured in the same run; never fails on absolute times.
bench: build
	node bench/dist/send-text.js

clean:
	rm -rf node_modules */node_modules */dist test/*/node_modules
