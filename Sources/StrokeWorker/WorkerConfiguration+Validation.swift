import Foundation
import StrokeProtocol
import StrokeRecognition

extension WorkerConfiguration {
    // MARK: - Ranges

    /// A numeric setting: its flag, how to read and write it, and the values it may take. The command line and
    /// `validate()` both check against this table, so a configuration built in code meets the same limits.
    struct Limit: Sendable {
        let flag: String
        let range: ClosedRange<Int>
        let value: @Sendable (WorkerConfiguration) -> Int
        let assign: @Sendable (inout WorkerConfiguration, Int) -> Void

        init(_ flag: String, _ range: ClosedRange<Int>, _ path: WritableKeyPath<WorkerConfiguration, Int> & Sendable) {
            self.flag = flag
            self.range = range
            value = { $0[keyPath: path] }
            assign = { $0[keyPath: path] = $1 }
        }

        init(_ flag: String, _ range: ClosedRange<Int>, _ path: WritableKeyPath<WorkerConfiguration, Int32> & Sendable)
        {
            self.flag = flag
            self.range = range
            value = { Int($0[keyPath: path]) }
            assign = { $0[keyPath: path] = Int32($1) }
        }
    }

    /// The numeric settings and their ranges.
    static let limits: [Limit] = [
        Limit("lanes", 1...64, \.lanes),
        Limit("max-points-per-stroke", 2...10_000_000, \.maxPointsPerStroke),
        Limit("max-points-per-message", 1...65_535, \.maxPointsPerMessage),
        Limit("max-open-strokes", 1...1024, \.maxOpenStrokes),
        Limit("max-session-templates", 0...1024, \.maxSessionTemplates),
        Limit("multistroke", 0...SessionOptions.maximumMultistrokeGap, \.multistrokeMilliseconds),
        Limit("max-learned-templates", 0...100_000_000, \.maxLearnedTemplates),
        Limit("max-sessions", 1...100_000_000, \.maxSessions),
        Limit("max-message-bytes", 64...(1 << 28), \.maxMessageBytes),
        Limit("max-subscription-bytes", 0...(1 << 40), \.maxSubscriptionBytes),
        Limit("idle-timeout", 1...(86_400 * 7), \.idleTimeoutSeconds),
        Limit("input-hwm", 0...10_000_000, \.inputHighWaterMark),
        Limit("hwm", 0...10_000_000, \.highWaterMark),
        Limit("send-timeout", -1...600_000, \.sendTimeoutMilliseconds),
        Limit("linger", -1...600_000, \.lingerMilliseconds),
        Limit("heartbeat", 0...600_000, \.heartbeatMilliseconds),
        Limit("consumer-timeout", 0...3_600_000, \.consumerTimeoutMilliseconds),
        Limit("tcp-keepalive", 0...86_400, \.tcpKeepaliveSeconds),
        Limit("handshake-retry", 0...3600, \.handshakeRetrySeconds),
        Limit("stats-interval", 0...86_400, \.statsIntervalSeconds),
        Limit("checkpoint-interval", 0...86_400, \.checkpointIntervalSeconds),
        Limit("adopt-state-max-age", 1...(86_400 * 7), \.adoptStateMaxAgeSeconds),
    ]

    // MARK: - Validation

    /// Checks every setting against the ranges the command line enforces, the shard, and the detector's and
    /// matcher's tunings; `Worker` calls it before it starts.
    ///
    /// - Throws: `RecognitionError` with code `.invalidConfiguration`, naming the setting by its flag.
    public func validate() throws(RecognitionError) {
        for limit in Self.limits where !limit.range.contains(limit.value(self)) {
            throw RecognitionError(
                .invalidConfiguration, "--\(limit.flag) \(limit.value(self)) is outside \(limit.range)")
        }
        guard (1...ShardKey.bucketCount).contains(shard.count), (0..<shard.count).contains(shard.index) else {
            throw RecognitionError(
                .invalidConfiguration, "--shard \(shard.index)/\(shard.count) is not I/N with 0 ≤ I < N ≤ 4096")
        }
        guard libraries.count < Self.maximumLibraries else {
            throw RecognitionError(
                .invalidConfiguration,
                "\(libraries.count) --library files; a worker loads at most \(Self.maximumLibraries - 1) beside default"
            )
        }
        if let stateFile {
            // The worker removes the file it read, moves one it cannot read aside and renames its own over it: of a
            // directory or a device (`/dev/null`), as root, that would move the system's own.
            if let kind = RecognitionError.nonRegularKind(of: stateFile) {
                throw RecognitionError(
                    .invalidConfiguration, "--state-file \(stateFile): it is \(kind); a state file is a regular file")
            }
            // Found out at the start, not at the stop, when the sessions would be lost: by creating a file there, as
            // the stop will. `access` alone let root through where no file can be created (`/proc`, an NFS export
            // that squashes root), and the stop then failed.
            let directory = RecognitionError.directory(of: stateFile)
            let probe = "\(stateFile).probe-\(getpid())"
            let descriptor = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            let failure = descriptor >= 0 || errno == EEXIST ? nil : errnoText()
            if descriptor >= 0 {
                close(descriptor)
                unlink(probe)
            }
            guard access(directory, W_OK) == 0, failure == nil else {
                throw RecognitionError(
                    .invalidConfiguration,
                    "--state-file \(stateFile): cannot write in \(directory) (\(failure ?? errnoText()))")
            }
        }
        if let metricsAddress {
            // Found out before the lanes start, not after they listened (the worker then stopped again).
            do {
                _ = try MetricsServer.parse(metricsAddress)
            } catch {
                throw RecognitionError(.invalidConfiguration, error.description)
            }
        }
        if let shared = Self.sharedAddress(among: listeningEndpoints)
            ?? Self.inputFromOwnOutput(inputs: inputs, outputs: outputs)
        {
            throw RecognitionError(.invalidConfiguration, shared)
        }
        if let healthFile, let kind = RecognitionError.nonRegularKind(of: healthFile) {
            throw RecognitionError(
                .invalidConfiguration, "--health-file \(healthFile): it is \(kind); a health file is a regular file")
        }
        try checkmark.validate()
        try recognizer.validate()
    }

    /// The text of the last system error.
    private func errnoText() -> String { String(cString: strerror(errno)) }

    /// The most template libraries a worker holds, the built-in one included.
    public static let maximumLibraries = Int(UInt16.max)
}
