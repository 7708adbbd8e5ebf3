#!/usr/bin/env bash
# Coverage-guided fuzzing of what the worker reads from outside: input payloads, messages to a session processor,
# events, template library files, state files and checkmark tunings (Fuzz/stroke-fuzz, `FuzzTarget`). libFuzzer
# mutates inputs toward code not run yet, under AddressSanitizer, in a release build (a debug build of the
# recognizer ran 20 times slower); each target also checks a property of its own (FuzzTarget.swift).
#
# Usage: scripts/fuzz-coverage.sh [TARGET...]   (default: every target)
# Environment: FUZZ_SECONDS, how long each target runs (default 60); or FUZZ_RUNS, how many inputs each runs, with a
# fixed FUZZ_SEED (default 1): the same inputs on every machine, as `make test` runs it. WORK is where the corpora
# grow between runs and the failing inputs land (default .build/fuzz-work).
#
# First every file of Fuzz/regressions/TARGET (inputs that once failed, kept) runs once; then the target fuzzes from
# the seeds of scripts/fuzz-seeds.py and its corpus so far. A failure prints the input's file and how to run it
# again, and the script exits 1.
set -euo pipefail
cd "$(dirname "$0")/.."

targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(input processor event library state checkmark)
work=${WORK:-.build/fuzz-work}
seconds=${FUZZ_SECONDS:-60}
runs=${FUZZ_RUNS:-}
seed=${FUZZ_SEED:-1}

# The fuzzer's runtime comes with the toolchain: its `main` is the program's own (Fuzz/stroke-fuzz/main.swift), as
# SwiftPM names every executable's entry point, so the library without one is linked.
swiftc_path=$(command -v swiftc)
runtime=$(find "$(dirname "$(dirname "$(readlink -f "$swiftc_path")")")/lib" \
    -name 'libclang_rt.fuzzer_no_main-*.a' 2>/dev/null | head -1)
[ -n "$runtime" ] || { echo "fuzz-coverage: libclang_rt.fuzzer_no_main is not in this toolchain" >&2; exit 2; }
mkdir -p "$work"
if ! STROKE_FUZZ=1 swift build -c release --scratch-path .build/fuzz --product stroke-fuzz -Xswiftc -warnings-as-errors \
    -Xswiftc -sanitize=address -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,trace-cmp,pc-table \
    -Xlinker "$runtime" -Xlinker -lstdc++ >"$work/build.log" 2>&1; then
    grep -v -e "Cannot export local symbol" -e "prohibited flag" "$work/build.log" | tail -30 >&2
    echo "fuzz-coverage: the build of stroke-fuzz failed" >&2
    exit 1
fi
binary=.build/fuzz/release/stroke-fuzz

python3 scripts/fuzz-seeds.py "$work" >/dev/null
mkdir -p "$work/artifacts"
# Swift's own backtracer, run inside AddressSanitizer's report of a crash, faults in its turn: libFuzzer's report
# is the one to read.
export SWIFT_BACKTRACE=enable=no
failed=0
for target in "${targets[@]}"; do
    mkdir -p "$work/corpus/$target"
    common=(-max_len=16384 -timeout=25 -rss_limit_mb=4096 -dict="$work/$target.dict"
        -artifact_prefix="$work/artifacts/$target-")
    if [ -d "Fuzz/regressions/$target" ] && [ -n "$(ls -A "Fuzz/regressions/$target")" ]; then
        if ! STROKE_FUZZ_TARGET=$target "$binary" "${common[@]}" Fuzz/regressions/"$target"/* \
            >"$work/$target-regressions.log" 2>&1; then
            echo "fuzz-coverage: $target: an input of Fuzz/regressions/$target fails again:" >&2
            grep -E "stroke-fuzz:|ERROR|Running:|SUMMARY" "$work/$target-regressions.log" | head -20 >&2
            failed=1
            continue
        fi
    fi
    if [ -n "$runs" ]; then
        limit=(-runs="$runs" -seed="$seed")
    else
        limit=(-max_total_time="$seconds")
    fi
    if STROKE_FUZZ_TARGET=$target "$binary" "${common[@]}" "${limit[@]}" -print_final_stats=1 \
        "$work/corpus/$target" "$work/seeds/$target" >"$work/$target.log" 2>&1; then
        summary=$(grep -E "^Done [0-9]+ runs" "$work/$target.log" | tail -1)
        coverage=$(grep -oE "cov: [0-9]+ ft: [0-9]+" "$work/$target.log" | tail -1)
        echo "fuzz-coverage: $target: ${summary:-done} ($coverage, corpus $(find "$work/corpus/$target" -type f | wc -l))"
    else
        artifact=$(grep -oE "Test unit written to [^ ]+" "$work/$target.log" | tail -1 | sed 's/Test unit written to //')
        echo "fuzz-coverage: $target FAILED; the input: ${artifact:-none written}" >&2
        grep -E "stroke-fuzz:|ERROR|SUMMARY|^    #[0-9]+ " "$work/$target.log" | head -30 >&2
        echo "  again: STROKE_FUZZ_TARGET=$target SWIFT_BACKTRACE=enable=no $binary ${artifact:-INPUT}" >&2
        failed=1
    fi
done
exit $failed
