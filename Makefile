# deltafs build and test entry points.
#
#   make test    everything CI runs (.ci/run calls exactly this)
#   make demo    build, then run the self-contained demo
#
# Layout and intent: see README.md ("Development").

# Recipes use bash for `set -o pipefail` and $(( )) arithmetic.
SHELL := /bin/bash
.DEFAULT_GOAL := build

GO       ?= go
PYTHON   ?= python3
BIN      := bin/deltafs
VENV     := .venv
VENV_PY  := $(VENV)/bin/python
FUZZTIME ?= 10s
# Time a fuzz worker may spend shrinking a new input (the engine's default,
# 60s, took whole short runs of targets whose inputs are files).
FUZZMINIMIZE ?= 2s

# The end-to-end tests (Go and Python) find the binary, the real Delta tables and the
# venv's interpreter through these variables. Defaults suit a checkout that has the
# shared test data beside it (../shared/testdata); override any of them on the command
# line or in the environment.
DELTAFS_TESTDATA ?= $(CURDIR)/../shared/testdata
DELTAFS_BIN      ?= $(CURDIR)/$(BIN)
DELTAFS_PYTHON   ?= $(CURDIR)/$(VENV_PY)
export DELTAFS_TESTDATA DELTAFS_BIN DELTAFS_PYTHON

# Tables the Python benchmarks run against (paths under DELTAFS_TESTDATA).
BENCH_TABLES ?= delta-rs/data/simple_table_with_checkpoint \
                delta-kernel-rs/golden_data/multi-part-checkpoint/delta

# $(call timed,LABEL,COMMAND): run COMMAND, print how long it took, keep its exit code.
# Gives per-phase timings in `make test` output (and so in CI logs).
# COMMAND must not contain a comma (make would split it into more arguments).
timed = start=$$(date +%s); $(2); rc=$$?; \
	echo "=== $(1): $$(( $$(date +%s) - start ))s (exit $$rc)"; exit $$rc

# $(call alive,COMMAND): run COMMAND with a line every 50 s saying it still
# runs (go test prints nothing while a package's tests run, and a package
# can take minutes under -race on a busy 2-core machine); keeps its exit code.
alive = ( while sleep 50; do echo "... still running ($$(date +%T))"; done ) & ticker=$$!; \
	$(1); rc=$$?; kill $$ticker 2>/dev/null; wait $$ticker 2>/dev/null; (exit $$rc)

.PHONY: build test gotest fuzz stress pytest venv fuse jre demo demo-venv bench fmt vet clean distclean

## build: the CLI binary. Needs cmd/deltafs. The commit it is built from goes
## into `deltafs version` (Go records none with -buildvcs=false).
REVISION := $(shell git rev-parse --short HEAD 2>/dev/null)
build:
	@[ -x $(BIN) ] || echo "build: compiling deltafs (a first build fetches and compiles its modules: a few minutes)"
	$(GO) build -ldflags "-X main.revision=$(REVISION)" -o $(BIN) ./cmd/deltafs

## test: what CI runs. Prerequisites first (FUSE tools, Python venv, object-store
## servers, binary: each its own step with a progress line), then
## vet, race-enabled unit tests, short fuzz runs and the Python end-to-end tests.
## Sequential on purpose: the machine has 2 cores and the phases compete for them.
test: fuse jre venv servers build
	@$(call timed,go vet,$(GO) vet ./...)
	@$(call timed,go test -race,$(MAKE) --no-print-directory gotest)
	@$(call timed,fuzz,$(MAKE) --no-print-directory fuzz)
	@$(call timed,pytest,$(MAKE) --no-print-directory pytest)
	@[ -f "$(DELTAFS_TESTDATA)/inventory.jsonl" ] || { \
	  echo "##################################################################"; \
	  echo "### NO SHARED TEST TABLES at $(DELTAFS_TESTDATA):"; \
	  echo "### every test that reads real Delta tables was SKIPPED."; \
	  echo "### See README, 'Real test tables', and set DELTAFS_TESTDATA."; \
	  echo "##################################################################"; }

## servers: the object-store servers the Go object-store tests (blobstore/, tests/)
## run deltafs against: versitygw (S3), fake-gcs-server (GCS), Azurite (Azure Blob).
## Installed once into .cache/servers by tests/servers/install.sh (go install and
## npm, pinned versions; skipped when already there). The tests start and stop the
## servers themselves, and install them on first use if this was not run.
.PHONY: servers servers-clean
servers:
	@$(call timed,servers,bash tests/servers/install.sh)

## servers-clean: remove the installed servers.
servers-clean:
	rm -rf .cache/servers

## gotest: only the Go tests (no fuzzing, no Python), under the race detector;
## then the one test whose code starts no goroutine and that -race only slows
## eightfold (the million-file bench table: 75 s against 10).
gotest:
	@$(call alive,$(GO) test -race -count=1 -timeout 30m ./...)
	@$(call alive,$(GO) test -count=1 -run '^TestBenchTableMillion$$' ./tests/deltagen)

## stress: the live-writer stress test, long (300 commits; CI runs it with 30
## as part of go test): latest only moves forward, never names a version that
## cannot be looked up, and no version directory ever changes.
stress:
	DELTAFS_STRESS_COMMITS=$${DELTAFS_STRESS_COMMITS:-300} $(GO) test -run TestLiveWriterStress -count=1 -v ./tests

## fuzz: run every Fuzz* target in every package for FUZZTIME (default 10s).
## `go test -fuzz` accepts one package and one target per run, hence the loops.
## Targets are found in the test sources: `go test -list` linked a test binary
## per package, a minute of CI even with a warm build cache.
## Crashers land in <pkg>/testdata/fuzz/ and become regular test cases afterwards.
fuzz:
	@set -eo pipefail; n=0; \
	for pkg in $$(find . -name '*_test.go' -not -path './.*' -exec grep -l '^func Fuzz' {} + | xargs -r -n1 dirname | sort -u); do \
	  for fz in $$(cat "$$pkg"/*_test.go | sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p'); do \
	    echo "--- fuzz $$pkg $$fz for $(FUZZTIME)"; \
	    if ! out=$$($(GO) test -run '^$$' -fuzz "^$$fz\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZE) "$$pkg" 2>&1); then \
	      echo "$$out"; \
	      engine() { grep -q 'context deadline exceeded' <<<"$$1" && ! grep -q 'Failing input written' <<<"$$1"; }; \
	      engine "$$out" || exit 1; \
	      ok=0; for try in 1 2; do \
	        echo "--- $$fz: the fuzzing engine hit its own deadline, no failing input (go.dev/issue/75804, fixed in Go 1.27): again ($$try of 2)"; \
	        if out=$$($(GO) test -run '^$$' -fuzz "^$$fz\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZE) "$$pkg" 2>&1); then tail -n 2 <<<"$$out"; ok=1; break; fi; \
	        echo "$$out"; engine "$$out" || exit 1; \
	      done; [ $$ok = 1 ] || exit 1; \
	    else tail -n 2 <<<"$$out"; fi; \
	    n=$$((n+1)); \
	  done; \
	done; \
	echo "fuzz: $$n target(s) run for $(FUZZTIME) each"

## pytest: Python end-to-end tests in tests/python (uses the venv).
## Exit code 5 means "no tests collected": accepted only while tests/python has no
## test files at all, and then announced loudly so nobody mistakes it for a pass.
pytest: venv
	@set +e; $(VENV_PY) -m pytest tests/python -q -rs; rc=$$?; \
	if [ $$rc -eq 5 ]; then \
	  if find tests/python -name 'test_*.py' -o -name '*_test.py' | grep -q .; then \
	    echo "pytest: test files exist in tests/python but none was collected" >&2; exit 1; \
	  fi; \
	  echo "########################################################"; \
	  echo "### pytest: NO PYTHON TESTS in tests/python yet (exit 5) ###"; \
	  echo "########################################################"; \
	  exit 0; \
	fi; \
	exit $$rc

## venv: the Python test/bench environment. The stamp makes it idempotent: pip runs
## again only when tests/requirements.txt changes (or after `make distclean`).
venv: $(VENV)/.stamp

$(VENV)/.stamp: tests/requirements.txt
	@start=$$(date +%s); \
	[ -x $(VENV_PY) ] || $(PYTHON) -m venv $(VENV) || { \
	  echo "cannot create $(VENV): on Debian install python3-venv (apt-get install -y python3-venv)" >&2; exit 1; }; \
	$(VENV_PY) -m pip install -q --disable-pip-version-check --no-input -r tests/requirements.txt && \
	touch $@ && echo "=== venv: ready in $$(( $$(date +%s) - start ))s"

## fuse: make sure the FUSE userspace tools exist. go-fuse mounts through
## fusermount3 when not root and to unmount; the Python tests use it as a fallback.
fuse:
	@if command -v fusermount3 >/dev/null 2>&1; then \
	  :; \
	elif [ "$$(id -u)" = 0 ]; then \
	  echo "fuse: installing fuse3"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get install -y -q fuse3 >/dev/null 2>&1 || \
	    { apt-get update -q >/dev/null && apt-get install -y -q fuse3 >/dev/null; } || exit 1; \
	else \
	  echo "fuse: fusermount3 is missing. Install it as root: apt-get install -y fuse3" >&2; \
	  exit 1; \
	fi; \
	echo "fuse: $$(command -v fusermount3) ($$(fusermount3 -V 2>&1))"; \
	[ -e /dev/fuse ] || echo "fuse: WARNING /dev/fuse is missing: mount tests will be skipped" >&2

## jre: make sure a Java runtime exists, for Spark in the Python tests (pyspark
## runs its reader in a JVM: Java 17 or later).
jre:
	@if command -v java >/dev/null 2>&1 || [ -n "$$JAVA_HOME" ]; then \
	  :; \
	elif [ "$$(id -u)" = 0 ]; then \
	  echo "jre: installing default-jre-headless"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get install -y -q --no-install-recommends default-jre-headless >/dev/null 2>&1 || \
	    { apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends default-jre-headless >/dev/null; } || exit 1; \
	else \
	  echo "jre: java is missing. Install it as root: apt-get install -y default-jre-headless" >&2; \
	  exit 1; \
	fi; \
	echo "jre: $$(java -version 2>&1 | sed -n 1p)"

## demo: build, make the small Python environment the demo's hints use
## (pyarrow and DuckDB, at the tests' versions; the tests' .venv when it
## exists), then run the built-in demo.
DEMO_VENV := .venv-demo
demo: fuse build demo-venv
	DELTAFS_DEMO_PYTHON="$$(cat $(DEMO_VENV)/python)" ./$(BIN) demo

demo-venv: $(DEMO_VENV)/python

$(DEMO_VENV)/python: tests/requirements.txt
	@if [ -f $(VENV)/.stamp ]; then \
	  mkdir -p $(DEMO_VENV) && echo "$(CURDIR)/$(VENV_PY)" > $@; \
	else \
	  echo "demo: a Python environment with pyarrow and DuckDB for the demo's hints ($(DEMO_VENV), about a minute)"; \
	  $(PYTHON) -m venv $(DEMO_VENV) || { echo "on Debian: apt-get install -y python3-venv" >&2; exit 1; }; \
	  $(DEMO_VENV)/bin/python -m pip install -q --disable-pip-version-check --no-input \
	    $$(grep -E '^(pyarrow|duckdb)==' tests/requirements.txt) && \
	  echo "$(CURDIR)/$(DEMO_VENV)/bin/python" > $@; \
	fi

## bench: Go benchmarks, then the Python reference benchmarks (delta-rs snapshot load)
## on a few shared tables so deltafs numbers have something to be compared with.
bench: venv
	$(GO) test -run XXX -bench . -benchmem ./...
	@for t in $(BENCH_TABLES); do \
	  $(VENV_PY) bench/deltars_snapshot.py "$(DELTAFS_TESTDATA)/$$t" --repeat 5 || exit 1; \
	done

## fmt: format Go sources in place.
fmt:
	gofmt -s -w $$($(GO) list -f '{{.Dir}}' ./...)

## vet: static checks.
vet:
	$(GO) vet ./...

## clean: build outputs and Go test cache. distclean: also the venv.
clean:
	rm -rf bin
	$(GO) clean -testcache

distclean: clean
	rm -rf $(VENV) $(DEMO_VENV)
