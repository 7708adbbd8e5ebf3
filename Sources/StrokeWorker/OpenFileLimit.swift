#if canImport(Glibc)
    import Glibc
#endif

/// The process's limit on open files (`RLIMIT_NOFILE`), which every producer's and consumer's connection counts
/// against.
///
/// Past the limit libzmq cannot accept a connection, and its I/O thread, finding the listening socket still
/// readable, tries again at once: measured here, a worker under `ulimit -S -n 64` with 100 connections open kept a core
/// 100% busy and took no new producer until connections closed. Shells and some supervisors leave a soft limit of 1,024
/// under a hard one far above it; the worker (and `stroke-worker proxy`) raises its soft limit to the hard one at the
/// start, as Go's runtime does, and warns when it stays below `comfortable`.
public enum OpenFileLimit {
    /// A limit below this many open files is warned about at the start: 4,096.
    public static let comfortable = 4096

    /// The soft limit now; nil where the system does not say.
    public static var current: Int? {
        var limits = rlimit()
        guard getrlimit(resource, &limits) == 0 else { return nil }
        return Self.count(limits.rlim_cur)
    }

    /// Raises the soft limit to the hard one (at most the kernel's `fs.nr_open`, which bounds it); the soft limit
    /// before and after, nil where the system does not say.
    @discardableResult
    public static func raise() -> (before: Int, after: Int)? {
        var limits = rlimit()
        guard getrlimit(resource, &limits) == 0 else { return nil }
        let before = limits.rlim_cur
        var target = limits.rlim_max
        if let kernelMaximum = kernelMaximum, target == Self.infinity || target > kernelMaximum {
            target = kernelMaximum
        }
        if target > before {
            var raised = limits
            raised.rlim_cur = target
            if setrlimit(resource, &raised) == 0 { limits = raised }
        }
        return (count(before), count(limits.rlim_cur))
    }

    /// Raises the limit (`raise()`) and says so in `logger`: at `info` when it rose, as a warning when it stays below
    /// `comfortable`.
    public static func raise(reportingTo logger: Logger) {
        guard let (before, after) = raise() else { return }
        if after > before {
            logger.info("open files limit raised to the hard limit", ["from": "\(before)", "to": "\(after)"])
        }
        if after < comfortable {
            logger.warning(
                "open files limit is low: each producer's and consumer's connection takes one, and past it libzmq "
                    + "spins on the connections it cannot take; raise it (ulimit -n, LimitNOFILE=, the container's "
                    + "nofile)", ["limit": "\(after)"])
        }
    }

    /// Files this process has open now (the entries of `/proc/self/fd`), nil where that cannot be read.
    public static func openCount() -> Int? {
        guard let directory = opendir("/proc/self/fd") else { return nil }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            let isDot = withUnsafeBytes(of: entry.pointee.d_name) { $0.first == UInt8(ascii: ".") }
            if !isDot { count += 1 }
        }
        return count - 1  // the directory's own descriptor, open while it is read
    }

    // MARK: - System

    /// `RLIM_INFINITY` (all bits set on Linux), which Swift does not import.
    private static let infinity = rlim_t.max

    private static var resource: __rlimit_resource_t { __rlimit_resource_t(RLIMIT_NOFILE.rawValue) }

    /// `fs.nr_open`: the kernel's ceiling for the limit; nil where it cannot be read.
    private static var kernelMaximum: rlim_t? {
        let descriptor = open("/proc/sys/fs/nr_open", O_RDONLY)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 32)
        let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        let text = String(decoding: bytes[0..<count], as: UTF8.self)
        return UInt64(text.prefix { $0.isNumber }).map { rlim_t($0) }
    }

    private static func count(_ limit: rlim_t) -> Int {
        limit == Self.infinity || limit > rlim_t(Int.max) ? Int.max : Int(limit)
    }
}
