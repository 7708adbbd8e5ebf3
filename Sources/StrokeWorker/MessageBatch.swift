import ZeroMQ

/// Messages received before they are handled together (`SessionProcessor.handle(batch:)`), allocated once
/// per lane.
final class MessageBatch {
    /// Messages it holds at most.
    let count: Int
    /// Message `k`'s topic is frame `2k`, its payload frame `2k + 1`.
    let messages: ZMQMessageBatch
    /// The bytes of both frames of the messages received so far, for the processor.
    let frames: UnsafeMutablePointer<(topic: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer)>

    init(count: Int) {
        self.count = count
        messages = ZMQMessageBatch(count: 2 * count)
        frames = .allocate(capacity: count)
        let empty = UnsafeRawBufferPointer(start: nil, count: 0)
        frames.initialize(repeating: (empty, empty), count: count)
    }

    deinit { frames.deallocate() }

    /// The first `count` messages' frames.
    @inline(__always)
    func pending(_ count: Int) -> UnsafeBufferPointer<(topic: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer)>
    {
        UnsafeBufferPointer(start: frames, count: count)
    }
}
