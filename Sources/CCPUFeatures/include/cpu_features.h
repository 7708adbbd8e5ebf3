#ifndef STROKE_CPU_FEATURES_H
#define STROKE_CPU_FEATURES_H

/// 1 if this CPU runs code built for x86-64-v3 (`-target-cpu haswell`: AVX2, FMA, BMI1/2, F16C, LZCNT,
/// MOVBE), else 0; always 0 on other architectures.
int stroke_cpu_runs_x86_64_v3(void);

/// 1 if this CPU runs code built for x86-64-v4 (`-target-cpu skylake-avx512`: x86-64-v3 and AVX-512 F, CD, BW, DQ,
/// VL, with the OS saving the registers) and has AVX-512 VBMI2, else 0. VBMI2 came with Ice Lake and Zen 4: it
/// leaves out the first AVX-512 cores (Skylake-SP, Cascade Lake), whose clock drops under 512-bit arithmetic.
int stroke_cpu_runs_x86_64_v4(void);

/// Asks the CPU to bring the cache line holding `address` close, for writing; a hint that never faults, whatever
/// the address.
static inline void stroke_prefetch(const void *address) { __builtin_prefetch(address, 1, 3); }

#endif
