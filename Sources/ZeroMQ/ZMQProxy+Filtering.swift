import CZeroMQ

extension ZMQProxy {
    /// Messages forwarded in one direction before the other direction and the control socket are looked at again,
    /// as libzmq's own proxy does.
    static let burst = 1000

    /// Forwards as `runSteerable` does, frontend to backend and backend to frontend, but reads the first frame of
    /// every message that arrives on the frontend first and drops the message when `admit` refuses it (the
    /// frame's connection and its metadata are there to look at: `ZMQMessage.sourceDescriptor`, `property`), and
    /// the same on the backend with `admitBackend` (for an XPUB backend: the subscriptions).
    /// `turn` is called after every poll, which waits at most `pollMilliseconds` (-1: until something arrives), with
    /// the counts so far (those `STATISTICS` answers).
    /// `control` (PAIR or REP) takes `PAUSE`, `RESUME`, `TERMINATE` and `STATISTICS` (eight 8-byte counts:
    /// frames and bytes received and sent on the frontend, then on the backend), as libzmq's proxy does. Sends
    /// block while a high-water mark is reached, as there.
    ///
    /// - Returns: when terminated through `control` or when the context is shut down.
    public static func runFiltering(
        frontend: ZMQSocket, backend: ZMQSocket, control: ZMQSocket, pollMilliseconds: Int = -1,
        turn: (_ counts: Counts) -> Void = { _ in }, admitBackend: (ZMQMessage) -> Bool = { _ in true },
        admit: (ZMQMessage) -> Bool
    ) throws(ZMQError) {
        var poller = ZMQPoller(readable: [frontend, backend, control])
        let message = ZMQMessage()
        var counts = Counts()
        var paused = false
        do {
            while true {
                let ready = try poller.poll(timeoutMilliseconds: pollMilliseconds)
                turn(counts)
                guard ready > 0 else { continue }
                if poller.isReadable(2) {
                    switch try command(control, message, counts: counts) {
                    case "TERMINATE": return
                    case "PAUSE": paused = true
                    case "RESUME": paused = false
                    default: break
                    }
                }
                guard !paused else { continue }
                if poller.isReadable(0) {
                    try forward(from: frontend, to: backend, message, &counts.frontendIn, &counts.backendOut, admit)
                }
                if poller.isReadable(1) {
                    try forward(
                        from: backend, to: frontend, message, &counts.backendIn, &counts.frontendOut, admitBackend)
                }
            }
        } catch  where error.code == .terminated {
            return
        }
    }

    /// Frames and bytes a proxy received and sent, per socket and direction: what `STATISTICS` answers.
    public struct Counts: Sendable, Equatable {
        /// Frames and bytes in one direction of one socket.
        public struct Traffic: Sendable, Equatable {
            /// Message frames (a message of two frames counts two, as libzmq's proxy counts).
            public var frames: UInt64 = 0
            /// Bytes of those frames.
            public var bytes: UInt64 = 0

            /// No frames, no bytes.
            public init() {}
        }

        /// Received on the frontend: what publishers sent.
        public var frontendIn = Traffic()
        /// Sent on the frontend: subscriptions going up.
        public var frontendOut = Traffic()
        /// Received on the backend: subscriptions from subscribers.
        public var backendIn = Traffic()
        /// Sent on the backend: what subscribers were given.
        public var backendOut = Traffic()

        /// Nothing counted yet.
        public init() {}
    }

    /// Forwards up to `burst` whole messages that are queued on `source`; drops those whose first frame `admit`
    /// refuses, with the rest of their frames.
    private static func forward(
        from source: ZMQSocket, to destination: ZMQSocket, _ message: ZMQMessage,
        _ received: inout Counts.Traffic, _ sent: inout Counts.Traffic,
        _ admit: (ZMQMessage) -> Bool
    ) throws(ZMQError) {
        for _ in 0..<burst {
            guard try source.receive(into: message, dontWait: true) else { return }
            let admitted = admit(message)
            while true {
                let (size, more) = (UInt64(message.count), message.hasMore)
                received.frames += 1
                received.bytes += size
                if admitted {
                    try destination.send(message, more: more)
                    sent.frames += 1
                    sent.bytes += size
                }
                guard more else { break }
                try source.receive(into: message)
            }
        }
    }

    /// Reads one command from `control` and answers it: the counts for `STATISTICS`, an empty frame for the others
    /// on a REP socket. Returns the command.
    private static func command(_ control: ZMQSocket, _ message: ZMQMessage, counts: Counts) throws(ZMQError)
        -> String
    {
        guard try control.receive(into: message, dontWait: true) else { return "" }
        let command = String(decoding: message.bytes, as: UTF8.self)
        while message.hasMore { try control.receive(into: message) }
        if command == "STATISTICS" {
            let values = [
                counts.frontendIn.frames, counts.frontendIn.bytes, counts.frontendOut.frames, counts.frontendOut.bytes,
                counts.backendIn.frames, counts.backendIn.bytes, counts.backendOut.frames, counts.backendOut.bytes,
            ]
            for (index, value) in values.enumerated() {
                try withUnsafeBytes(of: value.littleEndian) { bytes throws(ZMQError) in
                    _ = try control.send(bytes, more: index < values.count - 1)
                }
            }
        } else if control.kind == .rep {
            try control.send([UInt8]())
        }
        return command
    }
}
