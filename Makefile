# DocForge build. The README's set-up is two commands: 'make demo' and 'make test'.
GO      ?= go
BIN     := bin
EXAMPLE := examples/courier
DOCFORGE := $(BIN)/docforge

.PHONY: all build demo test vet fmt-check bench clean

all: build

build:
	$(GO) build -o $(BIN)/ ./cmd/...

# The main job: build, sync and validate the bundled example, run a few queries.
demo: build
	@echo "== validate $(EXAMPLE)"
	$(DOCFORGE) validate --project-root $(EXAMPLE)
	@echo "== sync (cold, then a no-change check)"
	$(DOCFORGE) sync --project-root $(EXAMPLE) --rebuild
	$(DOCFORGE) sync --project-root $(EXAMPLE)
	@echo "== search 'late events'"
	$(DOCFORGE) search --project-root $(EXAMPLE) "late events" --limit 3
	@echo "== get req.event-order"
	$(DOCFORGE) get --project-root $(EXAMPLE) req.event-order
	@echo "== backlinks arch.store"
	$(DOCFORGE) backlinks --project-root $(EXAMPLE) arch.store
	@echo "== filter --family requirements --tag api"
	$(DOCFORGE) filter --project-root $(EXAMPLE) --family requirements --tag api
	@echo "== impact arch.store --depth 2"
	$(DOCFORGE) impact --project-root $(EXAMPLE) arch.store --depth 2
	@echo "== backlinks go:example.com/courier/normalize.Normalize (code: calls, tests, docs)"
	$(DOCFORGE) backlinks --project-root $(EXAMPLE) go:example.com/courier/normalize.Normalize
	@echo "== logic go:example.com/courier/store.Log.State"
	$(DOCFORGE) logic --project-root $(EXAMPLE) go:example.com/courier/store.Log.State
	@echo "== validate a broken copy (expected to fail with every planted problem)"
	-$(DOCFORGE) validate --project-root examples/testdata/broken-nodes

# Every test, with the race detector. The MCP end-to-end test drives docforge-mcp with the
# official TypeScript SDK, installed from the npm registry as package-lock.json pins it.
TS_CLIENT := mcpbridge/testdata/ts-client
test: fmt-check vet $(TS_CLIENT)/node_modules/.installed
	$(GO) test -race -count=1 ./...

$(TS_CLIENT)/node_modules/.installed: $(TS_CLIENT)/package.json $(TS_CLIENT)/package-lock.json
	cd $(TS_CLIENT) && npm ci --no-audit --no-fund
	touch $@

vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed on: $$out"; exit 1; fi

# Benchmarks: never part of 'make test'. Generates synthetic 10k- and 100k-node projects under
# bench-out/ (reused while the generator is unchanged) and prints a Markdown report, also saved
# as bench-out/report.md. BENCH_FLAGS passes options, e.g. BENCH_FLAGS="--sizes 10000 --profile".
BENCH_FLAGS ?=
bench: build
	$(BIN)/docforge-bench --dir bench-out $(BENCH_FLAGS)

clean:
	rm -rf $(BIN) bench-out $(EXAMPLE)/.docforge $(TS_CLIENT)/node_modules
