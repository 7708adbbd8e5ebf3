#!/usr/bin/env bash
# What the recognition kernels' two bounds cost on this CPU, in core cycles: the latency of the vector add and
# minimum that every cell of the elastic matcher's recurrence chains (`left = cost + min(min(up, diagonal), left)`),
# and the throughput of the square root each cell takes of its 16 lanes (`vsqrtps`, 512- and 256-bit). The cycles
# are counted against a chain of dependent integer additions, one cycle each on every x86 core, so the figures
# need no performance counters (a Firecracker guest has none).
#
# Usage: scripts/vector-units.sh   (needs clang, which the Swift toolchain ships; AVX2, and AVX-512 for the
# 512-bit rows). docs/Performance.md, "What bounds the two unmet targets" (the elastic kernel), says what they bound.
set -euo pipefail
command -v clang >/dev/null || { echo "vector-units.sh: clang is not installed" >&2; exit 2; }
grep -qw avx2 /proc/cpuinfo || { echo "vector-units.sh: this CPU has no AVX2" >&2; exit 2; }
wide=0
grep -qw avx512f /proc/cpuinfo && wide=1

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/units.c" <<'EOF'
#include <immintrin.h>
#include <stdio.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* Keeps the compiler from hoisting or merging what it cannot see through. */
#define OPAQUE(v) __asm__ volatile("" : "+v"(v))
enum { N = 100000000 };

int main(void) {
    /* The clock: a chain of dependent integer additions, one cycle each on every x86 core. */
    long count = 0;
    double start = now();
    for (long i = 0; i < N / 8; i++)
        __asm__ volatile("add %0, %0\n\tadd %0, %0\n\tadd %0, %0\n\tadd %0, %0\n\t"
                         "add %0, %0\n\tadd %0, %0\n\tadd %0, %0\n\tadd %0, %0" : "+r"(count));
    double cycle = (now() - start) / N; /* seconds per cycle */

    __m256 add = _mm256_set1_ps(1), tiny = _mm256_set1_ps(1e-7f);
    start = now();
    for (long i = 0; i < N; i++) { add = _mm256_add_ps(add, tiny); OPAQUE(add); }
    double addition = (now() - start) / N / cycle;

    __m256 low = _mm256_set1_ps(5);
    start = now();
    for (long i = 0; i < N; i++) { low = _mm256_min_ps(low, tiny); OPAQUE(low); }
    double minimum = (now() - start) / N / cycle;

    /* One cell of the recurrence: the minimum with the cell on the left, then the cost added. */
    __m256 left = _mm256_set1_ps(1), up = _mm256_set1_ps(2);
    start = now();
    for (long i = 0; i < N; i++) { left = _mm256_add_ps(_mm256_min_ps(up, left), tiny); OPAQUE(left); }
    double chain = (now() - start) / N / cycle;

    __m256 in8[8], out8[8];
    for (int k = 0; k < 8; k++) in8[k] = _mm256_set1_ps(2.5f + k);
    start = now();
    for (long i = 0; i < N / 8; i++)
        for (int k = 0; k < 8; k++) { OPAQUE(in8[k]); out8[k] = _mm256_sqrt_ps(in8[k]); OPAQUE(out8[k]); }
    double root8 = (now() - start) / N / cycle;

    printf("clock: %.2f GHz (from a chain of dependent integer additions, 1 cycle each)\n", 1e-9 / cycle);
    printf("vaddps latency, 256-bit: %.1f cycles\n", addition);
    printf("vminps latency, 256-bit: %.1f cycles\n", minimum);
    printf("a cell's chain (vminps, then vaddps), 256-bit: %.1f cycles\n", chain);
    printf("vsqrtps, 256-bit (8 lanes), one every %.1f cycles\n", root8);
#ifdef WIDE
    __m512 add16 = _mm512_set1_ps(1), tiny16 = _mm512_set1_ps(1e-7f), low16 = _mm512_set1_ps(5);
    start = now();
    for (long i = 0; i < N; i++) { add16 = _mm512_add_ps(add16, tiny16); OPAQUE(add16); }
    printf("vaddps latency, 512-bit: %.1f cycles\n", (now() - start) / N / cycle);
    start = now();
    for (long i = 0; i < N; i++) { low16 = _mm512_min_ps(low16, tiny16); OPAQUE(low16); }
    printf("vminps latency, 512-bit: %.1f cycles\n", (now() - start) / N / cycle);
    __m512 left16 = _mm512_set1_ps(1), up16 = _mm512_set1_ps(2);
    start = now();
    for (long i = 0; i < N; i++) { left16 = _mm512_add_ps(_mm512_min_ps(up16, left16), tiny16); OPAQUE(left16); }
    printf("a cell's chain, 512-bit: %.1f cycles\n", (now() - start) / N / cycle);
    __m512 in16[8], out16[8];
    for (int k = 0; k < 8; k++) in16[k] = _mm512_set1_ps(2.5f + k);
    start = now();
    for (long i = 0; i < N / 8; i++)
        for (int k = 0; k < 8; k++) { OPAQUE(in16[k]); out16[k] = _mm512_sqrt_ps(in16[k]); OPAQUE(out16[k]); }
    double root16 = (now() - start) / N / cycle;
    printf("vsqrtps, 512-bit (16 lanes), one every %.1f cycles\n", root16);
#endif
    return count + add[0] + low[0] + left[0] + out8[0][0] < 0;
}
EOF
flags=(-O2 -mavx2)
[ "$wide" = 1 ] && flags+=(-mavx512f -DWIDE)
clang "${flags[@]}" "$work/units.c" -o "$work/units"
"$work/units"
