import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Where log lines are written: a file descriptor, without ever ending the process or holding the caller for long.
///
/// A worker's standard error is often a pipe to a log collector (`| tee`, a supervisor's logger). When that reader
/// goes away, a write raises `SIGPIPE`, which ends the process on the spot, sessions and state file unwritten: the
/// worker ignores the signal (`SignalHandling.ignoreBrokenPipes()`) and the write fails here instead. When the
/// reader stops reading and the pipe fills up, a write blocks the thread that logs (a lane, for its statistics) for
/// as long as the reader sleeps: here a line waits at most `patienceMilliseconds` for room, then it is dropped. Each
/// line not written whole is counted (`linesLost`: `logLinesLost` in `stats`, `stroke_worker_log_lines_lost_total`
/// on `/metrics`).
///
/// Lines are written one at a time, whatever the thread: a line longer than the pipe takes in one write
/// (`PIPE_BUF`, 4,096 bytes) is not interleaved with another thread's. A line cut short (a non-blocking standard
/// error that filled up partway through it) is ended before the next line written there, which then starts a line
/// of its own instead of being glued to the piece.
public enum LogOutput {
    /// How long a line waits for room in a full pipe before it is dropped, in milliseconds: 10.
    public static let patienceMilliseconds: Int32 = 10

    /// Lines not written whole so far in this process: their reader was gone, or made no room in time.
    public static var linesLost: Int { lost.load(ordering: .relaxed) }

    private static let lost = Atomic<Int>(0)

    /// Held while a line is written; the descriptor whose last line was cut short, if one was.
    private static let writing = Mutex<Int32?>(nil)

    /// Writes `text` whole to `descriptor` (default: standard error); false, and one more line lost, where it could
    /// not: the descriptor is closed or refuses writes, its reader has gone, or it had no room within the patience.
    @discardableResult
    public static func write(_ text: String, to descriptor: Int32 = 2) -> Bool {
        var text = text
        let written = writing.withLock { cut in
            if cut == descriptor {
                let newline: UInt8 = 10
                guard withUnsafeBytes(of: newline, { writeAll($0, to: descriptor) }) == 1 else { return false }
                cut = nil
            }
            let count = text.utf8.count
            let written = text.withUTF8 { writeAll(UnsafeRawBufferPointer($0), to: descriptor) }
            if written > 0 && written < count { cut = descriptor }
            return written == count
        }
        if !written { lost.add(1, ordering: .relaxed) }
        return written
    }

    // MARK: - Writing

    /// Writes `bytes` in as many `write` calls as the descriptor takes, each once `poll` says there is room; returns
    /// how many were written (all of them, unless it failed or ran out of patience).
    private static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Int {
        guard let base = bytes.baseAddress else { return 0 }
        var offset = 0
        while offset < bytes.count {
            // A pipe whose reader has gone polls as an error, not as writable: nothing is written, no EPIPE.
            var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            let polled = poll(&ready, 1, patienceMilliseconds)
            if polled < 0 && errno == EINTR { continue }
            guard polled > 0, ready.revents & Int16(POLLOUT) != 0 else { return offset }
            let count = Glibc.write(descriptor, base + offset, bytes.count - offset)
            if count < 0 {
                if errno == EINTR { continue }
                return offset
            }
            offset += count
        }
        return offset
    }
}
