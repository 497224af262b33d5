# deepseek-web-retrieval — see README.md.
#   make install   build, put the binary in ~/.local/bin, install into every host found
#   make test      every test suite: Go (core, module, CLI, installer), JS hosts, real OpenCode,
#                  real MCP hosts (Codex, Claude Code, Gemini CLI, Pi: tests/hosts), the npm
#                  packages from a local registry (tests/registry)
#   make build     plugin/core.wasm and bin/deepseek-web-retrieval
#   make dist      release archives, npm tarballs and checksums.txt in dist/
#   make bench     benchmarks that print figures, saved to bin/bench.txt and checked against
#                  RATIONALE.md's Figures table (make bench-check: check a saved output again;
#                  make bench-load: the MCP server under load; make bench-gateway: two serve
#                  replicas on one Redis under load)

GO        ?= go
WASM      := plugin/core.wasm
CLI       := bin/deepseek-web-retrieval
WASMFLAGS := -buildmode=c-shared -trimpath -buildvcs=false -ldflags='-s -w -buildid='
JSDIR     := tests/js
HOSTSDIR  := tests/hosts
# make install: the binary's install command copies it to $(BINDIR) (MCP hosts start
# it by that absolute path), then runs init: HOST=auto installs into every host found
# (OpenCode: the opencode on PATH picks the 1.x "plugin" or 2.x "plugins" key);
# INSTALL_FLAGS adds init flags. make uninstall reverses it and removes the binary.
HOST          ?= auto
INSTALL_FLAGS ?=
BINDIR        ?= $(HOME)/.local/bin
# make dist: VERSION (default core.Version) stamps the binaries and npm packages.
DIST          ?= dist
VERSION       ?=
REGISTRYDIR   := tests/registry

.PHONY: all build wasm cli dist install uninstall test test-go test-js test-hosts hosts-deps test-e2e test-registry registry-deps check-wasm lint bench bench-run bench-check bench-load bench-gateway wazero fuzz js-deps clean

all: build

build: wasm cli

wasm:
	GOOS=wasip1 GOARCH=wasm $(GO) build $(WASMFLAGS) -o $(WASM) ./wasm

# Static (no cgo): the same binary runs on any Linux libc, as the released ones do.
cli: wasm
	CGO_ENABLED=0 $(GO) build -trimpath -o $(CLI) ./cmd/deepseek-web-retrieval

install: cli
	$(CLI) install --yes --host $(HOST) --bin-dir $(BINDIR) $(INSTALL_FLAGS)

# Release artifacts (internal/cmd/dist): static binaries for linux, darwin and windows on
# amd64 and arm64, their archives, the npm tarballs (npm/packages.json names them) and
# checksums.txt; the same commit gives the same bytes.
dist: wasm
	$(GO) run ./internal/cmd/dist -out $(DIST) $(if $(VERSION),-version $(VERSION))

uninstall: cli
	$(CLI) uninstall --scope global --yes --host $(HOST)
	rm -f $(BINDIR)/deepseek-web-retrieval

# lint also vets the tree for macOS and Windows: users build the binary there too.
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	GOOS=wasip1 GOARCH=wasm $(GO) vet ./core/... ./wasm/...
	GOOS=darwin GOARCH=arm64 $(GO) vet ./...
	GOOS=windows GOARCH=amd64 $(GO) vet ./...
	@if $(GO) list -deps ./core/... | grep -qx 'net/http'; then echo "core imports net/http"; exit 1; fi

# The committed module must be exactly what this tree builds.
check-wasm:
	@tmp=$$(mktemp -d) && GOOS=wasip1 GOARCH=wasm $(GO) build $(WASMFLAGS) -o $$tmp/core.wasm ./wasm && \
	if cmp -s $$tmp/core.wasm $(WASM); then echo "plugin/core.wasm matches a fresh build"; rm -rf $$tmp; \
	else echo "plugin/core.wasm differs from a fresh build: run 'make wasm' and commit it"; rm -rf $$tmp; exit 1; fi

test: lint check-wasm test-go test-js test-hosts test-registry

# Every Go build in `make test` (vet, go test, the CLI that cmd/'s tests build, the reactor of
# wasi.test.js, the `make install` of e2e-install.test.js) uses -trimpath, as `make build`
# does, so each package is compiled once: -trimpath is part of the build cache key, and a cold
# cache otherwise compiles the CLI and its dependencies twice. (`go env GOFLAGS` keeps flags
# set with `go env -w`, which a GOFLAGS variable would otherwise hide.)
test: export GOFLAGS := $(strip $(shell $(GO) env GOFLAGS 2>/dev/null) -trimpath)

# The module's own package (wasm/) has tests that only build for wasip1: they run under
# wazero's CLI, built from the wazero version go.mod pins. cmd/'s kill loop (200 killed runs
# per host, TestKilledRunsRecover) takes minutes on two cores: hence the longer timeout.
test-go: wazero
	$(GO) test -count=1 -timeout 30m ./...
	GOOS=wasip1 GOARCH=wasm $(GO) test -count=1 -exec "$(CURDIR)/bin/wazero run" ./wasm/

wazero:
	$(GO) build -o bin/wazero github.com/tetratelabs/wazero/cmd/wazero

js-deps:
	cd $(JSDIR) && npm install --no-audit --no-fund

# The node:test files run under Node and under Bun 1.3.14 (OpenCode's runtime); the files
# that start the real OpenCode (e2e-*.test.js) run once, under Bun, three files at a time.
test-js: js-deps
	cd $(JSDIR) && npm test && npm run test:bun && npm run test:e2e

test-e2e: js-deps
	cd $(JSDIR) && npm run test:e2e

# Real MCP hosts (Codex, Claude Code, Gemini CLI, Pi) on loopback mocks: tests/hosts/README.md.
# every-host.test.js also runs OpenCode 1.18.33 from tests/js (js-deps).
# Installed only when the lockfile changed (node_modules/.package-lock.json is npm's own stamp).
# `npm install --no-save`, not `npm ci`: Cline, Kilo and Qwen Code's clipboard list one optional
# package per platform and the registry serves only this one's, so the lockfile cannot name the
# others and `npm ci` refuses it as out of sync. --no-save installs what the lockfile pins and rewrites
# neither file.
hosts-deps: $(HOSTSDIR)/node_modules/.package-lock.json

$(HOSTSDIR)/node_modules/.package-lock.json: $(HOSTSDIR)/package.json $(HOSTSDIR)/package-lock.json
	cd $(HOSTSDIR) && npm install --no-save --no-audit --no-fund

test-hosts: cli hosts-deps js-deps
	cd $(HOSTSDIR) && DWR_BIN=$(abspath $(CLI)) node --test --test-concurrency=1

# The npm packages from a local registry (verdaccio on 127.0.0.1): npx install into the
# real Codex, npm i -g, --omit=optional, the plugin in the real OpenCode (tests/registry/README.md).
registry-deps: $(REGISTRYDIR)/node_modules/.package-lock.json

$(REGISTRYDIR)/node_modules/.package-lock.json: $(REGISTRYDIR)/package.json $(REGISTRYDIR)/package-lock.json
	cd $(REGISTRYDIR) && npm ci --no-audit --no-fund

test-registry: dist registry-deps hosts-deps js-deps
	cd $(REGISTRYDIR) && DIST=$(abspath $(DIST)) CODEX_BIN=$(abspath $(HOSTSDIR))/node_modules/.bin/codex node --test --test-concurrency=1

# make bench prints the figures the RATIONALE.md files point to, each group under a heading
# `== ...` echoed by a bench recipe here, saves the output to BENCH_OUT, then checks it:
# internal/cmd/benchcheck finds every row of RATIONALE.md's "Figures" table (each figure the
# records quote) in the output and compares the printed value with the written one. A row
# whose line nothing printed fails, and so does a figure past its row's tolerance:
# BENCHCHECK_FLAGS=-warn reports drift without failing, for a busy machine.
# make bench-check BENCH_OUT=FILE checks a saved output again, running nothing.
# Timings come from BENCHTIME per benchmark, and the benchmarks that build up state (a full
# page cache, 5,000 operations, worst bodies) run once; the JS benchmarks take smaller samples
# than their defaults (BENCH_* variables, see tests/js). On 2 busy cores it takes a few
# minutes; BENCHTIME=1s and the scripts' defaults are steadier.
BENCHTIME        ?= 200ms
BENCHJS          ?= BENCH_RUNS=5 BENCH_CALLS=100 BENCH_MEM_CALLS=500 BENCH_WARM_CALLS=1000 BENCH_IDLE_RUNS=3
BENCHGO          := $(GO) test -run='^$$' -benchmem -benchtime=$(BENCHTIME)
BENCH_OUT        ?= bin/bench.txt
BENCHCHECK_FLAGS ?=

# The output goes to the terminal and to BENCH_OUT; a failed benchmark fails make bench
# before the check (sh has no pipefail, hence the status file).
bench:
	@mkdir -p $(dir $(BENCH_OUT))
	@{ $(MAKE) --no-print-directory bench-run 2>&1; echo $$? > $(BENCH_OUT).status; } | tee $(BENCH_OUT)
	@s=$$(cat $(BENCH_OUT).status); rm -f $(BENCH_OUT).status; \
	if [ "$$s" != 0 ]; then echo "make bench: a benchmark failed (output in $(BENCH_OUT))"; exit $$s; fi
	@$(MAKE) --no-print-directory bench-check

bench-check:
	$(GO) run ./internal/cmd/benchcheck $(BENCHCHECK_FLAGS) $(BENCH_OUT)

bench-run: build wazero
	@echo "== module size: plugin/core.wasm"
	@echo "raw $$(wc -c < $(WASM)) bytes, gzip -9 $$(gzip -9 -c $(WASM) | wc -c) bytes"
	@echo "== engine, natively: core/, internal/opencode/, internal/abi/"
	$(BENCHGO) -bench=. ./core/... ./internal/opencode/ ./internal/abi/
	@echo "== inside the module: allocations per step (wasm/, under wazero)"
	GOOS=wasip1 GOARCH=wasm $(BENCHGO) -bench=. -exec "$(CURDIR)/bin/wazero run" ./wasm/
	@echo "== the module under wazero: size, start, steps, end to end (tests/)"
	$(BENCHGO) -bench='ModuleSize|Compile|Instantiate|StepRoundTrip|EndToEnd|PagingCachedPart' ./tests/
	@echo "== the module under wazero: linear memory (tests/, one run each)"
	$(GO) test -run='^$$' -benchtime=1x -bench='BenchmarkMemory$$|PagingMemory|WorstBodies' ./tests/
	@echo "== the MCP server: start, per-call overhead, memory, shutdown (cmd/)"
	$(BENCHGO) -bench=. ./cmd/...
	@echo "== the shared cache: first open, new file and existing (internal/diskcache/)"
	$(BENCHGO) -bench=. ./internal/diskcache/
	@echo "== the plugin under Node and Bun (tests/js)"
	cd $(JSDIR) && $(BENCHJS) npm run bench
	@echo "== the MCP server under load: peak RSS and how calls ended (tests/load)"
	$(MAKE) bench-load
	@echo "== the team gateway under load: two serve replicas on one Redis (tests/load/gateway)"
	$(MAKE) bench-gateway

# The MCP server under load, as a child process (tests/load): peak RSS and how every call
# ended, for paused Messages turns, a client that never reads, large and identical fetches.
bench-load: cli
	$(GO) run ./tests/load -bin $(CLI)

# The team gateway under load (tests/load/gateway): 200 MCP clients over two serve replicas
# on one redis-server, against a mock DeepSeek: the latency the gateway adds, peak RSS per
# replica, DeepSeek requests and hit rate of a skewed workload, and the same with one replica
# killed half-way (failed calls, none hung). Needs redis-server; under 2 minutes; exits 1
# only on a hung, failed or wrong call or a crashed replica, never on a timing.
bench-gateway: cli
	$(GO) run ./tests/load/gateway -bin $(CLI)

clean:
	rm -rf bin $(DIST)
