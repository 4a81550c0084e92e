# webbench — make setup installs what is missing (idempotent); demo and test run it first.
DRIVER_DIR ?= .cache/driver
PLAYWRIGHT_CORE_VERSION := 1.64.1
CHROMIUM ?= /usr/lib/chromium/chromium
GO ?= go
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: setup chromium driver build demo test test-short bench fmt vet

setup: chromium driver

chromium:
	@if [ -x "$(CHROMIUM)" ] || [ -n "$$WEBBENCH_CHROMIUM" ]; then :; else \
	  echo "installing Debian chromium…"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium >/dev/null; fi

driver:
	@if [ -f "$(DRIVER_DIR)/node_modules/playwright-core/package.json" ] && \
	   grep -q '"version": "$(PLAYWRIGHT_CORE_VERSION)"' "$(DRIVER_DIR)/node_modules/playwright-core/package.json"; then :; else \
	  echo "installing playwright-core@$(PLAYWRIGHT_CORE_VERSION) into $(DRIVER_DIR)…"; \
	  mkdir -p "$(DRIVER_DIR)" && cd "$(DRIVER_DIR)" && \
	  npm install --silent --no-audit --no-fund --no-save playwright-core@$(PLAYWRIGHT_CORE_VERSION) >/dev/null; fi

build:
	$(GO) build -o bin/bench ./cmd/bench

# The main job: the guard ablation (leave-one-out over the seven guards, scripted policy, profile observed).
# Re-running resumes runs/demo; delete it for a fresh run.
demo: setup build
	./bin/bench ablate suites/zoo/ablations/demo.yaml --out runs/demo

test: setup
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 25m ./...

test-short:
	$(GO) test -short -count=1 ./...

fmt:
	gofmt -w $$(git ls-files '*.go')
