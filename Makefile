# deepseek-web-retrieval — see README.md.
#   make install   build and install the OpenCode plugin into the global config
#   make test      every test suite: Go (core, module, CLI, installer), JS hosts, real OpenCode
#   make build     plugin/core.wasm and bin/deepseek-web-retrieval
#   make bench     benchmarks that print figures

GO        ?= go
WASM      := plugin/core.wasm
CLI       := bin/deepseek-web-retrieval
WASMFLAGS := -buildmode=c-shared -trimpath -buildvcs=false -ldflags='-s -w -buildid='
JSDIR     := tests/js
# make install: HOST=auto asks the opencode on PATH for its version (1.x gets the
# "plugin" key, 2.x or none the "plugins" key); INSTALL_FLAGS adds init flags.
HOST          ?= auto
INSTALL_FLAGS ?=

.PHONY: all build wasm cli install uninstall test test-go test-js test-e2e check-wasm lint bench fuzz js-deps clean

all: build

build: wasm cli

wasm:
	GOOS=wasip1 GOARCH=wasm $(GO) build $(WASMFLAGS) -o $(WASM) ./wasm

cli: wasm
	$(GO) build -trimpath -o $(CLI) ./cmd/deepseek-web-retrieval

install: cli
	$(CLI) init --scope global --yes --host $(HOST) $(INSTALL_FLAGS)

uninstall: cli
	$(CLI) uninstall --scope global --yes

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	GOOS=wasip1 GOARCH=wasm $(GO) vet ./core/... ./wasm/...
	@if $(GO) list -deps ./core/... | grep -qx 'net/http'; then echo "core imports net/http"; exit 1; fi

# The committed module must be exactly what this tree builds.
check-wasm:
	@tmp=$$(mktemp -d) && GOOS=wasip1 GOARCH=wasm $(GO) build $(WASMFLAGS) -o $$tmp/core.wasm ./wasm && \
	if cmp -s $$tmp/core.wasm $(WASM); then echo "plugin/core.wasm matches a fresh build"; rm -rf $$tmp; \
	else echo "plugin/core.wasm differs from a fresh build: run 'make wasm' and commit it"; rm -rf $$tmp; exit 1; fi

test: lint check-wasm test-go test-js

test-go:
	$(GO) test -count=1 ./...

js-deps:
	cd $(JSDIR) && npm install --no-audit --no-fund

# The same node:test files run under Node and under Bun 1.3.14 (OpenCode's runtime).
test-js: js-deps
	cd $(JSDIR) && npm test && npm run test:bun

bench: build
	$(GO) test -run='^$$' -bench=. -benchmem ./core/... ./tests/... ./cmd/...
	cd $(JSDIR) && npm run bench

clean:
	rm -rf bin
