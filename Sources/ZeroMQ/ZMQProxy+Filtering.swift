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
    /// wait while a high-water mark is reached (a subscriber behind on an `XPUB_NODROP` backend), as there; with a
    /// `pollMilliseconds` of 0 or more they wait that long at a time (both sockets' send timeout is set to it), and
    /// between two waits the loop still turns (`turn`, with `Counts.waiting` set) and answers `control`: a proxy
    /// held back by a slow subscriber shows that it is alive, hands its counts over and terminates on command,
    /// where libzmq's proxy stays in its send until the subscriber reads or the context is shut down.
    /// `frontendRead` sees every whole message received on the frontend, admitted or not: its bytes (all its frames)
    /// and its last frame, before that is sent (`ZMQMessage.sourceDescriptor`); `frontendEmptied` is called
    /// whenever the frontend was found to hold no message.
    ///
    /// - Returns: when terminated through `control` or when the context is shut down.
    public static func runFiltering(
        frontend: ZMQSocket, backend: ZMQSocket, control: ZMQSocket, pollMilliseconds: Int = -1,
        turn: (_ counts: Counts) -> Void = { _ in }, admitBackend: (ZMQMessage) -> Bool = { _ in true },
        frontendRead: (_ bytes: Int, _ lastFrame: ZMQMessage) -> Void = { _, _ in },
        frontendEmptied: () -> Void = {},
        admit: (ZMQMessage) -> Bool
    ) throws(ZMQError) {
        var poller = ZMQPoller(readable: [frontend, backend, control])
        let message = ZMQMessage()
        // The control socket's commands between two waits of a send: another message for the frame being sent.
        let command = ZMQMessage()
        var counts = Counts()
        var paused = false
        /// Answers a command on `control`, if one arrived (`STATISTICS` with `counts`); false for `TERMINATE`.
        func steer(_ counts: Counts) throws(ZMQError) -> Bool {
            switch Command(rawValue: try Self.command(control, command, counts: counts)) {
            case .terminate: return false
            case .pause: paused = true
            case .resume: paused = false
            case .statistics, nil: break
            }
            return true
        }
        /// A send waited `pollMilliseconds` for a peer behind: the loop turns, and the send goes on unless
        /// `TERMINATE` arrived (false).
        func waited(_ counts: Counts) throws(ZMQError) -> Bool {
            turn(counts)
            return try steer(counts)
        }
        do {
            if pollMilliseconds >= 0 {
                for socket in [frontend, backend] { try socket.setTimeouts(send: Int32(clamping: pollMilliseconds)) }
            }
            while true {
                let ready = try poller.poll(timeoutMilliseconds: pollMilliseconds)
                turn(counts)
                guard ready > 0 else {
                    frontendEmptied()
                    continue
                }
                if poller.isReadable(2) {
                    guard try steer(counts) else { return }
                }
                guard !paused else { continue }
                if poller.isReadable(0) {
                    guard
                        try forward(
                            .down, from: frontend, to: backend, message, &counts, admit, read: frontendRead,
                            emptied: frontendEmptied, waited: waited)
                    else { return }
                } else {
                    frontendEmptied()
                }
                if poller.isReadable(1) {
                    guard
                        try forward(
                            .up, from: backend, to: frontend, message, &counts, admitBackend, read: { _, _ in },
                            emptied: {}, waited: waited)
                    else { return }
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

            /// Counts one frame of `size` bytes.
            mutating func add(_ size: UInt64) {
                frames += 1
                bytes += size
            }
        }

        /// Received on the frontend: what publishers sent.
        public var frontendIn = Traffic()
        /// Sent on the frontend: subscriptions going up.
        public var frontendOut = Traffic()
        /// Received on the backend: subscriptions from subscribers.
        public var backendIn = Traffic()
        /// Sent on the backend: what subscribers were given.
        public var backendOut = Traffic()
        /// Times a send waited a whole poll interval for a peer a high-water mark behind (a subscriber of an
        /// `XPUB_NODROP` backend) and was tried again: the proxy's backpressure, in poll intervals.
        public var waits: UInt64 = 0
        /// Whether a send is waiting for such a peer now (as of the turn that handed these counts over).
        public var waiting = false

        /// Nothing counted yet.
        public init() {}
    }

    /// The direction of a `forward`: publishers' messages down, frontend to backend; subscriptions up.
    private enum Direction {
        case down, up
    }

    /// Forwards up to `burst` whole messages that are queued on `source`; drops those whose first frame `admit`
    /// refuses, with the rest of their frames. `read` sees each whole message (its bytes, its last frame), and
    /// `emptied` is called when `source` was found to hold no more. A send that returns without having sent (its
    /// socket's send timeout) is counted in `counts.waits` and tried again after `waited`, which returns false to
    /// stop: `forward` then returns false, the frame unsent.
    private static func forward(
        _ direction: Direction, from source: ZMQSocket, to destination: ZMQSocket, _ message: ZMQMessage,
        _ counts: inout Counts, _ admit: (ZMQMessage) -> Bool, read: (Int, ZMQMessage) -> Void,
        emptied: () -> Void, waited: (Counts) throws(ZMQError) -> Bool
    ) throws(ZMQError) -> Bool {
        for _ in 0..<burst {
            guard try source.receive(into: message, dontWait: true) else {
                emptied()
                return true
            }
            let admitted = admit(message)
            var bytes = 0
            while true {
                let (size, more) = (UInt64(message.count), message.hasMore)
                bytes += Int(size)
                if !more { read(bytes, message) }
                switch direction {
                case .down: counts.frontendIn.add(size)
                case .up: counts.backendIn.add(size)
                }
                if admitted {
                    while try !destination.send(message, more: more) {
                        counts.waits += 1
                        counts.waiting = true
                        guard try waited(counts) else { return false }
                    }
                    counts.waiting = false
                    switch direction {
                    case .down: counts.backendOut.add(size)
                    case .up: counts.frontendOut.add(size)
                    }
                }
                guard more else { break }
                try source.receive(into: message)
            }
        }
        return true
    }

    /// Reads one command from `control` and answers it: the counts for `STATISTICS`, an empty frame for the others
    /// on a REP socket. Returns the command.
    private static func command(_ control: ZMQSocket, _ message: ZMQMessage, counts: Counts) throws(ZMQError)
        -> String
    {
        guard try control.receive(into: message, dontWait: true) else { return "" }
        let command = String(decoding: message.bytes, as: UTF8.self)
        while message.hasMore { try control.receive(into: message) }
        if command == Command.statistics.rawValue {
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
