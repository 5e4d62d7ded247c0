# DocForge build. The README's set-up is two commands: 'make demo' and 'make test'.
GO      ?= go
BIN     := bin
EXAMPLE := examples/courier
DOCFORGE := $(BIN)/docforge

.PHONY: all build ui ui-check test-tools demo demo-manager test vet fmt-check bench soak eval eval-goroot clean generate generate-check docs

all: build

build: ui
	$(GO) build -o $(BIN)/ ./cmd/...

# The graph browser page: web/ui's sources bundled with esbuild (npm packages pinned by its
# package-lock.json) into web/ui/dist, which the docforge binary embeds. The bundle is
# committed, so 'go install ./cmd/...' gives a viewer that serves the page; 'make ui' rebuilds
# it after an edit, and 'make ui-check' (part of 'make test') fails when the committed bundle
# is not what a fresh build of the sources makes.
UI        := web/ui
UI_BUNDLE := $(UI)/dist/app.js
UI_FILES  := app.js index.html boot.js app.css
ui: $(UI_BUNDLE)

$(UI)/node_modules/.installed: $(UI)/package.json $(UI)/package-lock.json
	cd $(UI) && npm ci --no-audit --no-fund
	touch $@

# ui_into DIR: bundle the page into DIR.
ui_into = cd $(UI) && ./node_modules/.bin/esbuild src/main.js --bundle --minify --format=iife --target=es2020 --log-level=warning --outfile=$(1)/app.js && \
	cp src/index.html src/boot.js src/app.css $(1)/

$(UI_BUNDLE): $(UI)/node_modules/.installed $(wildcard $(UI)/src/*)
	$(call ui_into,dist)

ui-check: $(UI)/node_modules/.installed
	@tmp=$$(mktemp -d) && ($(call ui_into,$$tmp)) && \
	for f in $(UI_FILES); do \
		cmp -s $$tmp/$$f $(UI)/dist/$$f || { echo "web/ui/dist/$$f is not what web/ui/src builds: run 'make ui' and commit web/ui/dist" >&2; rm -rf $$tmp; exit 1; }; \
	done; rm -rf $$tmp

# apt_need CMD,PACKAGE: install Debian's PACKAGE when CMD is missing, as root or through sudo,
# so that 'make test' on a fresh Debian machine with Go and Node needs no other step.
apt_need = command -v $(1) >/dev/null || { \
	if [ "$$(id -u)" = 0 ]; then sudo=; elif command -v sudo >/dev/null; then sudo=sudo; \
	else echo "$(1) is missing: install Debian's $(2) (apt-get install $(2)), then run make again" >&2; exit 1; fi; \
	echo "== installing Debian's $(2) (for $(1))"; \
	$$sudo apt-get update -qq && $$sudo apt-get install -y -qq --no-install-recommends $(2) >/dev/null; }

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
	@echo "== context arch.store --limit 3 (the MCP docforge_get_context stream, run through the worker)"
	$(DOCFORGE) context --project-root $(EXAMPLE) arch.store --limit 3
	@echo "== render the declared views to HTML, then check them (receipts and stats only)"
	$(DOCFORGE) render --project-root $(EXAMPLE)
	$(DOCFORGE) render --project-root $(EXAMPLE) --status
	@echo "== validate a broken copy (expected to fail with every planted problem)"
	-$(DOCFORGE) validate --project-root examples/testdata/broken-nodes
	@$(MAKE) --no-print-directory demo-manager

# The MCP path: a manager (in a private temporary runtime directory, stopped at the end, so a
# manager you run yourself is left alone), its worker for the example, a tool call through
# it, a real MCP session over stdio through docforge-mcp, and the manager's status.
MCP_INIT := {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"make-demo","version":"1"}}}
MCP_READY := {"jsonrpc":"2.0","method":"notifications/initialized"}
MCP_IMPACT := {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"docforge_impact","arguments":{"node_id":"arch.store","depth":1,"limit":3}}}
demo-manager: build
	@run=$$(mktemp -d) && export XDG_RUNTIME_DIR=$$run && \
	trap '$(DOCFORGE) manager stop; rm -rf "$$run"' EXIT && \
	echo "== manager start (runtime directory $$run)" && \
	$(DOCFORGE) manager start && \
	echo "== call docforge_search through the manager's worker" && \
	$(DOCFORGE) call --project-root $(EXAMPLE) docforge_search '{"query":"late events","limit":2}' && \
	echo "== an MCP session: docforge-mcp over stdio, forwarding to the same worker (first 300 characters of each reply)" && \
	{ printf '%s\n' '$(MCP_INIT)' '$(MCP_READY)' '$(MCP_IMPACT)'; sleep 1; } | \
		$(BIN)/docforge-mcp --project-root $(abspath $(EXAMPLE)) | cut -c1-300 && \
	echo "== the graph browser: a viewer of arch.store in the worker (its URL dies with this demo's manager; to browse, run: bin/docforge view --project-root $(EXAMPLE))" && \
	$(DOCFORGE) view --project-root $(EXAMPLE) --no-open arch.store && \
	echo "== manager status" && \
	$(DOCFORGE) manager status

# Protocol code: protoc (Debian's protobuf-compiler) with the generators pinned here and in
# go.mod. 'make generate' rewrites proto/docforge/v2/*.pb.go; 'make generate-check' (part of
# 'make test') fails if the committed files differ from a fresh generation.
PROTO_DIR := proto/docforge/v2
PROTOC_GEN_GO_GRPC := google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.2
PROTO_GEN := $(abspath $(BIN))/protogen

$(PROTO_GEN)/protoc-gen-go $(PROTO_GEN)/protoc-gen-go-grpc:
	@$(call apt_need,protoc,protobuf-compiler)
	mkdir -p $(PROTO_GEN)
	$(GO) build -o $(PROTO_GEN)/protoc-gen-go google.golang.org/protobuf/cmd/protoc-gen-go
	GOBIN=$(PROTO_GEN) $(GO) install $(PROTOC_GEN_GO_GRPC)

# protoc_into DIR: generate the Go code of every .proto into DIR.
protoc_into = protoc --proto_path=proto --plugin=protoc-gen-go=$(PROTO_GEN)/protoc-gen-go \
	--plugin=protoc-gen-go-grpc=$(PROTO_GEN)/protoc-gen-go-grpc \
	--go_out=$(1) --go_opt=paths=source_relative --go-grpc_out=$(1) --go-grpc_opt=paths=source_relative \
	$(PROTO_DIR)/*.proto

generate: $(PROTO_GEN)/protoc-gen-go $(PROTO_GEN)/protoc-gen-go-grpc
	$(call protoc_into,proto)

generate-check: $(PROTO_GEN)/protoc-gen-go $(PROTO_GEN)/protoc-gen-go-grpc
	@tmp=$$(mktemp -d) && $(call protoc_into,$$tmp) && \
	if [ "$$(cd $$tmp/docforge/v2 && ls *.pb.go)" != "$$(cd $(PROTO_DIR) && ls *.pb.go)" ]; then \
		echo "the committed generated files are not the set protoc makes: run 'make generate' and commit" >&2; rm -rf $$tmp; exit 1; \
	fi; \
	for f in $$tmp/docforge/v2/*.go; do \
		cmp -s $$f $(PROTO_DIR)/$$(basename $$f) || { echo "generated $$(basename $$f) differs from the committed one: run 'make generate' and commit" >&2; rm -rf $$tmp; exit 1; }; \
	done; rm -rf $$tmp

# The generated references: the tool catalogue the bridge embeds (worker/protocol/tools.json)
# from the tools' definitions, then docs/cli.md, docs/tools.md and docs/errors.md from the
# commands, that catalogue and the error catalogue. Tests fail while a committed one is stale.
docs:
	$(GO) test -count=1 ./worker -run '^TestToolCatalog$$' -update
	$(GO) test -count=1 ./cmd/docforge -run '^TestReferencePagesAreCurrent$$' -update

# Every test, with the race detector. The MCP end-to-end test drives docforge-mcp with the
# official TypeScript SDK, installed from the npm registry as package-lock.json pins it; the
# browser tests drive Debian's Chromium; the fault suite checks out real git branches. A test
# whose tool is missing skips naming the package under a plain 'go test'; here
# DOCFORGE_REQUIRE_ALL=1 makes it fail instead, so nothing is skipped silently.
TS_CLIENT := mcpbridge/testdata/ts-client
# The TypeScript and JavaScript adapter's oracle: TypeScript's own parser and the MCP SDK.
ECMA_ORACLE := source/ecma/testdata/oracle
test: fmt-check vet generate-check ui-check test-tools $(TS_CLIENT)/node_modules/.installed $(ECMA_ORACLE)/node_modules/.installed
	DOCFORGE_REQUIRE_ALL=1 $(GO) test -race -count=1 ./...

test-tools:
	@$(call apt_need,chromium,chromium)
	@$(call apt_need,rg,ripgrep)
	@$(call apt_need,git,git)
	@$(call apt_need,gcc,gcc)
	@$(call apt_need,python3,python3)
	@$(call apt_need,javac,default-jdk-headless)

$(TS_CLIENT)/node_modules/.installed: $(TS_CLIENT)/package.json $(TS_CLIENT)/package-lock.json
	cd $(TS_CLIENT) && npm ci --no-audit --no-fund
	touch $@

$(ECMA_ORACLE)/node_modules/.installed: $(ECMA_ORACLE)/package.json $(ECMA_ORACLE)/package-lock.json
	cd $(ECMA_ORACLE) && npm ci --no-audit --no-fund
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

# Evidence quality: never part of 'make test'. Adopts each real repository as a new user would
# and scores task context and search against its task set's ground truth, beside ripgrep
# baselines in the same run (../shared/eval/README.md): every set in EVAL_DIR with its corpus
# (NAME.json over CORPORA/NAME.tar.gz), one report each in bench-out/eval-NAME.md. EVAL_SET and
# EVAL_CORPUS run one set instead. Needs ripgrep, installed here when missing.
# HISTORY=1 runs every set with its repository's history instead: the repository is cloned
# from EVAL_GIT (%s: its name, such as go-sdk; a local mirror may stand in for GitHub) at the
# set's commit, and the reports are bench-out/eval-NAME-history.md.
EVAL_DIR    ?= ../shared/eval
EVAL_CORPORA ?= ../shared/corpora
EVAL_SET    ?=
EVAL_CORPUS ?=
EVAL_FLAGS  ?=
HISTORY     ?=
EVAL_GIT    ?= https://github.com/modelcontextprotocol/%s
eval: build
	@$(call apt_need,rg,ripgrep)
	mkdir -p bench-out
	@if [ -n "$(EVAL_SET)" ]; then \
		$(BIN)/docforge-eval --set $(EVAL_SET) --corpus $(EVAL_CORPUS) --work bench-out/eval --out bench-out/eval.md $(EVAL_FLAGS); \
	else \
		for set in $(EVAL_DIR)/*.json; do \
			name=$$(basename $$set .json); \
			echo "== $$name" >&2; \
			if [ -n "$(HISTORY)" ]; then \
				$(BIN)/docforge-eval --set $$set --git '$(EVAL_GIT)' --work bench-out/eval-history/$$name \
					--out bench-out/eval-$$name-history.md $(EVAL_FLAGS) || exit 1; \
			else \
				$(BIN)/docforge-eval --set $$set --corpus $(EVAL_CORPORA)/$$name.tar.gz --work bench-out/eval/$$name \
					--out bench-out/eval-$$name.md $(EVAL_FLAGS) || exit 1; \
			fi; \
		done; \
	fi

# The fault suite's long forms (docs/benchmarks.md, "Faults"); make test runs the short ones.
# Not part of make test. Needs root (a tmpfs is mounted for the full-disk case) and git.
SOAK_SECONDS ?= 60
SOAK_ROUNDS  ?= 50
SOAK_TESTS   := TestBridgesUnderChurn|TestKilledApplyWithALiveWorker|TestCallerVanishingDuringAColdBuild|TestSyncUnderChurnIsNeverFalselyInvalid|TestWatch|TestFullDisk|TestOnePublisherPerProject
soak: build
	mkdir -p bench-out
	DOCFORGE_SOAK_SECONDS=$(SOAK_SECONDS) DOCFORGE_SOAK_ROUNDS=$(SOAK_ROUNDS) $(GO) test -count=1 -v -timeout 60m \
		-run '^($(SOAK_TESTS))' ./cmd/docforge-mcp/ ./cmd/docforge/ ./index/ ./worker/ > bench-out/soak.log 2>&1; \
		status=$$?; grep -E '^(--- |ok|FAIL)|soak:|outcomes:' bench-out/soak.log; exit $$status

# A held-out check on code no one here wrote: net/http of the local Go toolchain, copied with a
# go.mod (a code-only project), against cmd/docforge-eval/testdata/goroot-net-http.json.
EVAL_GOROOT := bench-out/eval-goroot/http
eval-goroot: build
	@$(call apt_need,rg,ripgrep)
	rm -rf $(dir $(EVAL_GOROOT)) && mkdir -p $(EVAL_GOROOT)
	cp -r $$($(GO) env GOROOT)/src/net/http/. $(EVAL_GOROOT)/ && chmod -R u+w $(EVAL_GOROOT)
	printf 'module net/http\n' > $(EVAL_GOROOT)/go.mod
	cd $(EVAL_GOROOT) && git init -q && ../../../$(DOCFORGE) init >/dev/null
	$(BIN)/docforge-eval --set cmd/docforge-eval/testdata/goroot-net-http.json --project $(EVAL_GOROOT) --out bench-out/eval-goroot.md $(EVAL_FLAGS)

clean:
	rm -rf $(BIN) bench-out $(EXAMPLE)/.docforge $(TS_CLIENT)/node_modules $(ECMA_ORACLE)/node_modules $(UI)/node_modules
