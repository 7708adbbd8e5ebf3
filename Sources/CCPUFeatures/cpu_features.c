#include "cpu_features.h"

int stroke_cpu_runs_x86_64_v3(void) {
#if defined(__x86_64__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi")
        && __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("f16c") && __builtin_cpu_supports("lzcnt")
        && __builtin_cpu_supports("movbe");
#else
    return 0;
#endif
}

int stroke_cpu_runs_x86_64_v4(void) {
#if defined(__x86_64__)
    // __builtin_cpu_supports reports an AVX-512 feature only where the OS saves the AVX-512 state (XGETBV).
    return stroke_cpu_runs_x86_64_v3() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd")
        && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq")
        && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vbmi2");
#else
    return 0;
#endif
}
