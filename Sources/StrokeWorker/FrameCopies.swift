/// Two-frame messages (topic, payload) copied into one allocation, for a caller that feeds
/// `SessionProcessor.handle(batch:)` from memory of its own (a benchmark, a test, a fuzz target) as the lane feeds
/// it the frames it received.
///
/// The frames stay valid for as long as the copies live; `withBatch(_:_:)` keeps them alive for its body.
public final class FrameCopies {
    /// A message as `SessionProcessor.handle(batch:)` takes it: its topic frame and its payload frame.
    public typealias Frame = (topic: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer)

    private let bytes: UnsafeMutableRawBufferPointer
    private let frames: UnsafeMutableBufferPointer<Frame>

    /// Copies `messages`, in order.
    public init(_ messages: some Collection<(topic: [UInt8], payload: [UInt8])>) {
        let total = messages.reduce(0) { $0 + $1.topic.count + $1.payload.count }
        bytes = .allocate(byteCount: max(total, 1), alignment: 16)
        frames = .allocate(capacity: messages.count)
        var offset = 0
        func copy(_ frame: [UInt8]) -> UnsafeRawBufferPointer {
            let target = UnsafeMutableRawBufferPointer(rebasing: bytes[offset..<offset + frame.count])
            frame.withUnsafeBytes { target.copyMemory(from: $0) }
            offset += frame.count
            return UnsafeRawBufferPointer(target)
        }
        for (index, message) in messages.enumerated() {
            (frames.baseAddress! + index).initialize(to: (copy(message.topic), copy(message.payload)))
        }
    }

    deinit {
        bytes.deallocate()
        frames.deallocate()
    }

    /// The number of messages.
    public var count: Int { frames.count }

    /// Calls `body` with all the messages as one batch.
    public func withBatch<Result>(_ body: (UnsafeBufferPointer<Frame>) throws -> Result) rethrows -> Result {
        try withBatch(0..<frames.count, body)
    }

    /// Calls `body` with the messages in `range` as one batch.
    public func withBatch<Result>(
        _ range: Range<Int>, _ body: (UnsafeBufferPointer<Frame>) throws -> Result
    ) rethrows -> Result {
        precondition(range.lowerBound >= 0 && range.upperBound <= frames.count, "FrameCopies: \(range) out of range")
        return try withExtendedLifetime(self) { try body(UnsafeBufferPointer(rebasing: frames[range])) }
    }
}
