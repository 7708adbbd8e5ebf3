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
