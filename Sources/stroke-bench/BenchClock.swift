#if canImport(Glibc)
    import Glibc
#endif

/// CLOCK_MONOTONIC in nanoseconds: the same clock in every process of the machine, so a child process's
/// timestamps compare with ours.
enum BenchClock {
    static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    /// CPU time of the calling thread in seconds (CLOCK_THREAD_CPUTIME_ID): for threads that end before anybody
    /// could read their times from /proc.
    static func threadCPUSeconds() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    static func sleep(until deadline: UInt64) {
        while true {
            let current = now()
            if current >= deadline { return }
            let remaining = deadline - current
            var spec = timespec(tv_sec: Int(remaining / 1_000_000_000), tv_nsec: Int(remaining % 1_000_000_000))
            nanosleep(&spec, nil)
        }
    }
}
