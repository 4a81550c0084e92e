# webbench — make setup installs what is missing (idempotent); demo and test run it first.
DRIVER_DIR ?= .cache/driver
PLAYWRIGHT_CORE_VERSION := 1.64.1
CHROMIUM ?= /usr/lib/chromium/chromium
HEADLESS_SHELL := /usr/lib/chromium/chromium-headless-shell
GO ?= go
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: setup chromium driver agents mcp junit-schema build demo test test-timing test-short zoo-check pr-gate-check bench fmt vet calibrate calibrate-clustered calibrate-sequential

setup: chromium driver agents mcp junit-schema

# Debian's chromium-headless-shell (the same release) is installed beside chromium: headless launches prefer it
# (browser DefaultHeadlessShell; about half the private memory per worker). Optional: without it they use
# $(CHROMIUM).
chromium:
	@if [ -x "$(CHROMIUM)" ] || [ -n "$$WEBBENCH_CHROMIUM" ]; then :; else \
	  echo "installing Debian chromium…"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium >/dev/null; fi
	@if [ -x "$(HEADLESS_SHELL)" ] || [ -n "$$WEBBENCH_CHROMIUM" ] || [ "$(CHROMIUM)" != /usr/lib/chromium/chromium ]; then :; else \
	  echo "installing Debian chromium-headless-shell…"; \
	  ( $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium-headless-shell >/dev/null ) || \
	  echo "warning: chromium-headless-shell not installed; headless launches use $(CHROMIUM)"; fi

# The Apache Ant JUnit schema (Windy Road JUnit.xsd, Apache-2.0) that ablation's --format junit test validates
# against with xmllint: shipped verbatim by the npm package junit-xml@1.2.0 (src/index.test.ts, antJunitSchema);
# installed into the git-ignored .cache, not committed. Skipped when present.
JUNIT_XML_DIR ?= .cache/junit-xml
junit-schema:
	@command -v xmllint >/dev/null || { echo "installing libxml2-utils (xmllint)…"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq libxml2-utils >/dev/null; }
	@if [ -f "$(JUNIT_XML_DIR)/node_modules/junit-xml/src/index.test.ts" ]; then :; else \
	  echo "installing junit-xml@1.2.0 (the JUnit schema) into $(JUNIT_XML_DIR)…"; \
	  npm install --prefix "$(JUNIT_XML_DIR)" --silent --no-audit --no-fund --no-save junit-xml@1.2.0 >/dev/null; fi

driver:
	@if [ -f "$(DRIVER_DIR)/node_modules/playwright-core/package.json" ] && \
	   grep -q '"version": "$(PLAYWRIGHT_CORE_VERSION)"' "$(DRIVER_DIR)/node_modules/playwright-core/package.json"; then :; else \
	  echo "installing playwright-core@$(PLAYWRIGHT_CORE_VERSION) into $(DRIVER_DIR)…"; \
	  mkdir -p "$(DRIVER_DIR)" && cd "$(DRIVER_DIR)" && \
	  npm install --silent --no-audit --no-fund --no-save playwright-core@$(PLAYWRIGHT_CORE_VERSION) >/dev/null; fi

# The Playwright MCP releases the built-in agent can run on (`tools: {kind: mcp, command: [npx,
# @playwright/mcp@VERSION, …]}`, suites/zoo/ablations/mcp-versions.yaml), each pinned in a folder of its own:
# browser/mcptools resolves [npx, @playwright/mcp@VERSION] to $(MCP_CACHE_DIR)/VERSION/node_modules/@playwright/mcp/cli.js,
# so no attempt fetches a package. Skipped for a version already installed there.
MCP_CACHE_DIR ?= .cache/mcp
MCP_VERSIONS := 0.0.83 0.0.78
mcp:
	@for v in $(MCP_VERSIONS); do \
	  if grep -qs "\"version\": \"$$v\"" "$(MCP_CACHE_DIR)/$$v/node_modules/@playwright/mcp/package.json"; then :; else \
	    echo "installing @playwright/mcp@$$v into $(MCP_CACHE_DIR)/$$v…"; \
	    mkdir -p "$(MCP_CACHE_DIR)/$$v" && \
	    npm install --prefix "$(MCP_CACHE_DIR)/$$v" --silent --no-audit --no-fund --no-save @playwright/mcp@$$v >/dev/null || exit 1; fi; \
	done

# The Node reference agent (examples/agents/node): its pinned packages (package-lock.json) and its build
# (tsc → dist/agent.js). Skipped when node_modules holds the pinned versions and dist is newer than the source.
AGENT_NODE_DIR := examples/agents/node
agents:
	@if grep -qs '"version": "1.32.2"' "$(AGENT_NODE_DIR)/node_modules/@modelcontextprotocol/sdk/package.json" && \
	   grep -qs '"version": "6.30.1"' "$(AGENT_NODE_DIR)/node_modules/openai/package.json" && \
	   grep -qs '"version": "5.9.3"' "$(AGENT_NODE_DIR)/node_modules/typescript/package.json"; then :; else \
	  echo "installing the Node reference agent's packages into $(AGENT_NODE_DIR)/node_modules…"; \
	  npm ci --prefix "$(AGENT_NODE_DIR)" --silent --no-audit --no-fund >/dev/null; fi
	@if [ "$(AGENT_NODE_DIR)/dist/agent.js" -nt "$(AGENT_NODE_DIR)/src/agent.ts" ]; then :; else \
	  npm run --prefix "$(AGENT_NODE_DIR)" --silent build; fi

build:
	$(GO) build -o bin/bench ./cmd/bench

# The main job: the guard ablation (leave-one-out over the seven guards, scripted policy, profile observed).
# Re-running resumes runs/verdicts; delete it for a fresh run.
demo: setup build
	./bin/bench ablate suites/zoo/ablations/verdicts.yaml --out runs/verdicts

# The determinism test (two runs of one hand-written task per Zoo cell and an A/A ablation, the same seed) runs
# beside the package pass, as a second go test process, so that the pass need not wait for it: on 2 cores the
# pass's browser tests are its CPU load (load 12-18), more than its own hogs (one per core) would be, so it
# starts hogs only for the cores beyond two (WEBBENCH_TEST_HOGS). Its output is held in a file and printed after
# the pass's, so the two do not interleave; an interrupt stops it and removes the file.
# The pass runs four test packages at a time (go test's default is one per core): a browser test spends much of
# its wall time waiting on pages, timers and subprocesses, and at three at a time the packages queued behind the
# third slot (agents, zoo, workflows: 800 s one after another) ended as late as cmd/bench, leaving a 130 s tail of
# short packages at 1.6 of the 2 cores. The slow browser packages are named first, longest
# first (SLOW_TEST_PKGS): go test starts the packages' test binaries in the order its command line names them
# (cmd/go/internal/test: a barrier chains the run actions in package order), so they start at once instead of
# queueing behind the short packages that ./... lists before them; ./... adds the rest, each package once. A name
# here that no longer exists fails the pass.
SLOW_TEST_PKGS := ./cmd/bench ./runner ./examples/agents ./suites/zoo ./internal/workflows ./browser ./browser/mcptools
TEST_PASS := -p 4 -count=1 -timeout 25m -skip '^TestSameSeedSameOutcome$$' $(SLOW_TEST_PKGS) ./...
TEST_DETERMINISM := -count=1 -timeout 30m -run '^TestSameSeedSameOutcome$$' ./cmd/bench
# BESIDE_PASS runs its first argument (a shell command writing to the file $$d) in the background, then the package
# pass (its second argument), waits for both and fails when either failed.
BESIDE_PASS = d=$$(mktemp); n=$$(nproc); (WEBBENCH_TEST_HOGS=$$(( n > 2 ? n - 2 : 0 )) $(1)) > $$d 2>&1 & det=$$!; \
	  trap 'kill $$det 2>/dev/null; rm -f $$d; exit 130' INT TERM; \
	  $(2); a=$$?; wait $$det; b=$$?; \
	  echo "--- determinism test (beside the pass):"; cat $$d; rm -f $$d; [ $$a = 0 ] && [ $$b = 0 ]
test: setup
	$(GO) vet ./...
	$(call BESIDE_PASS,$(GO) test $(TEST_DETERMINISM),$(GO) test $(TEST_PASS))

vet:
	$(GO) vet ./...

# `make zoo-check`: every instance of every Zoo task family (docs/ZOO.md "Task families") played by the scripted
# policy in real Chromium: each solution passes under the clean profile, and each mutated instance fails with its
# mutation's guard off. make test runs the same two tests on one instance per app and per mutation (zootest.SampleCells).
zoo-check: setup
	WEBBENCH_TEST_WHOLE_ZOO=1 $(GO) test -count=1 -timeout 60m -run '^TestZooFamily' ./runner

# `make pr-gate-check`: the PR workflow's gate (pr-ablation.yml: its Zoo selection, REPS and MARGIN) sees each of
# the five large-effect guards removed and passes an A/A pair: one base run, an A/A run and one head per guard, 7
# runs of 148 attempts (docs/ZOO.md "The PR gate"); the pr-gate-check workflow runs it.
pr-gate-check: setup
	WEBBENCH_TEST_PR_GATE=1 $(GO) test -count=1 -timeout 90m -run '^TestPRGateSeesGuardRemoved$$' ./cmd/bench

# `make test-timing`: make test's two passes as make test runs them, recorded with go test -json into
# runs/test-timing/ (pass.json, determinism.json) for BENCHMARKS.md's "make test" section, which make bench adds
# when the files are there (benchreport -test-json). Failing tests still record their time; the target fails and
# prints their output (benchreport -test-fails).
TEST_TIMING_DIR := runs/test-timing
TEST_TIMING_JSON := $(TEST_TIMING_DIR)/pass.json,$(TEST_TIMING_DIR)/determinism.json
test-timing: setup
	mkdir -p $(TEST_TIMING_DIR)
	$(GO) vet ./...
	$(call BESIDE_PASS,$(GO) test -json $(TEST_DETERMINISM) > $(TEST_TIMING_DIR)/determinism.json,$(GO) test -json $(TEST_PASS) > $(TEST_TIMING_DIR)/pass.json) \
	  || { $(GO) run ./bench/cmd/benchreport -test-fails $(TEST_TIMING_JSON); exit 1; }

test-short:
	$(GO) test -short -count=1 ./...

# `make calibrate`: the full calibration suite of the ablation statistics: 36 simulated settings (and the 24 clustered ones,
# the 8 sequential ones and the cost settings) × 400
# A/A and 400 power runs through the real analysis; writes CALIBRATION.md. The fast subset runs in `make test`.
CALIBRATE_RUNS ?= 400
calibrate:
	nice $(GO) run ./cmd/calibrate -out CALIBRATION.md -runs $(CALIBRATE_RUNS)

# `make calibrate-clustered`: only CALIBRATION.md's clustered designs (24 settings, the family as the unit),
# replacing that section in place.
calibrate-clustered:
	nice $(GO) run ./cmd/calibrate -out CALIBRATION.md -runs $(CALIBRATE_RUNS) -only clustered

# `make calibrate-sequential`: only CALIBRATION.md's sequential ablations (8 settings monitored after every unit),
# replacing that section in place.
calibrate-sequential:
	nice $(GO) run ./cmd/calibrate -out CALIBRATION.md -runs $(CALIBRATE_RUNS) -only sequential

fmt:
	gofmt -w $$(git ls-files '*.go')

# `make bench`: benchmarks of where the time goes (bench/, bench/cmd/benchreport); prints one table and writes
# BENCHMARKS.md. Installs the comparison baseline @playwright/mcp into bench/mcp (node_modules git-ignored).
MCP_VERSION := 0.0.83
MCP_DIR := bench/mcp

bench: setup
	@if grep -qs '"version": "$(MCP_VERSION)"' "$(MCP_DIR)/node_modules/@playwright/mcp/package.json"; then :; else \
	  echo "installing @playwright/mcp@$(MCP_VERSION) into $(MCP_DIR)…"; \
	  npm install --prefix "$(MCP_DIR)" --silent --no-audit --no-fund --save-exact @playwright/mcp@$(MCP_VERSION) >/dev/null; fi
	$(GO) run ./bench/cmd/benchreport -mcp-dir "$(MCP_DIR)" -out BENCHMARKS.md \
	  $(if $(wildcard $(TEST_TIMING_DIR)/pass.json),-test-json $(TEST_TIMING_JSON))
