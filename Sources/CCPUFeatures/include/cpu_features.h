#ifndef STROKE_CPU_FEATURES_H
#define STROKE_CPU_FEATURES_H

/// 1 if this CPU runs code built for x86-64-v3 (`-target-cpu haswell`: AVX2, FMA, BMI1/2, F16C, LZCNT,
/// MOVBE), else 0; always 0 on other architectures.
int stroke_cpu_runs_x86_64_v3(void);

/// Asks the CPU to bring the cache line holding `address` close, for writing; a hint that never faults, whatever
/// the address.
static inline void stroke_prefetch(const void *address) { __builtin_prefetch(address, 1, 3); }

#endif
