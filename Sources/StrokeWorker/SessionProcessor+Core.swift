import StrokeProtocol
import StrokeRecognition

// MARK: - Core

extension SessionProcessor {
    /// Everything but the session table: decoding buffers, the event writer, the stroke pool and the sink.
    struct Core {
        var sink: Sink
        let configuration: WorkerConfiguration
        var registry: LibraryRegistry
        let metrics: WorkerMetrics
        let decoder: InputDecoder
        var message = InputMessage()
        var writer = JSONWriter()
        var spareStrokes: [OpenStroke] = []
        /// Every new stroke's detector starts as a copy of this one, so that all of them share its tuning object
        /// (read for every message, and then always in the cache) instead of each having its own.
        let detector: CheckmarkDetector.State
        /// Counts not yet added to the shared metrics (`flushMetrics`, once a lane's turn): a counter added to once
        /// a stroke shared its cache line with the recognition helper's, which then moved between the cores.
        var pendingMessages = 0
        var pendingPoints = 0
        var pendingStrokes = 0
        /// The templates sessions learned, by session: beside the table, so that a session's state stays 112
        /// bytes. Looked up when a stroke ends and the lane holds any.
        var learned: [SessionKey: LearnedTemplates] = [:]
        /// The gestures of several strokes waiting for a stroke, by session (beside the table, as `learned`).
        var gestures: [SessionKey: PendingGesture] = [:]
        /// The gestures sessions chose to be matched among, by session (beside the table, as `learned`), and the
        /// distinct choices they share.
        var choices: [SessionKey: GestureChoice] = [:]
        var choicePool = GestureChoice.Pool()
        /// The minimum stroke sizes of sessions whose own (`options` with `minimumSize`) differs from the worker's
        /// default (`WorkerConfiguration.minimumStrokeSize`), by session (beside the table, as `learned`).
        var minimumSizes: [SessionKey: Double] = [:]
        /// The thresholds of sessions that raised their library's (`options` with `minimumScore`), by session.
        var minimumScores: [SessionKey: Double] = [:]
        /// The scores of gestures of their own, of sessions that set some (`options` with `gestureScores`), and the
        /// distinct sets of scores they share (`SessionProcessor.Core.setGestureScores(_:of:)`).
        var gestureScores: [SessionKey: [String: Double]] = [:]
        /// Each distinct set of scores the lane's sessions set, once: the copy they share.
        var scorePool = Set<[String: Double]>()
        /// The size `scorePool` may reach before it forgets the scores no session holds any more.
        var scorePoolLimit = 64
        /// The lane's clock in milliseconds, by which gestures wait (`SessionProcessor.milliseconds`).
        var milliseconds: UInt64 = 0
        /// The earliest deadline of `gestures`, or later (never earlier); `UInt64.max` when none waits.
        var nextGestureDeadline = UInt64.max
        /// `gestures.count` as last added to the shared `gesturesWaiting` gauge.
        var reportedGestures = 0
        /// The sessions whose options, choice or learned gestures changed, or that ended, since the lane's last
        /// checkpoint (`SessionProcessor.checkpointChanges()`); nil when the worker writes no checkpoints.
        var settingsChanged: Set<SessionKey>?
        /// This worker's shard, `index/count`, as a `pong` gives it.
        let shardName: String
        /// Where the rotations of matches that tell a session's tilt come back from the thread that recognized them
        /// (`SessionProcessor.applyTiltFeedback()`).
        let tiltFeedback = TiltFeedback()
        /// Scratch for the samples taken from `tiltFeedback`.
        var tiltSamples: [TiltFeedback.Sample] = []

        init(sink: Sink, configuration: WorkerConfiguration, registry: LibraryRegistry, metrics: WorkerMetrics) {
            self.sink = sink
            self.configuration = configuration
            self.registry = registry
            self.metrics = metrics
            self.decoder = InputDecoder(maximumPointsPerMessage: configuration.maxPointsPerMessage)
            self.detector = CheckmarkDetector.State(configuration: configuration.checkmark)
            self.shardName = "\(configuration.shard.index)/\(configuration.shard.count)"
            if configuration.writesCheckpoints { settingsChanged = [] }
        }

        /// Notes that the session's options, choice or learned gestures may have changed, or that it ended, for
        /// the next checkpoint (nothing without checkpoints; never on the per-point path).
        mutating func noteSettingsChanged(_ key: SessionKey) { settingsChanged?.insert(key) }

        /// Returns whether the session lives on.
        mutating func process(_ session: inout Session, id: UnsafeRawBufferPointer) -> Bool {
            // Outside the session's numbering, and its state; it counts as activity (the caller notes the time), so
            // that a producer keeps a pausing session from being closed as idle.
            if message.kind == .ping {
                pong(id, known: true)
                return true
            }
            guard number(&session, id: id) else { return true }
            switch message.kind {
            case .begin:
                if let existing = session.strokes.index(of: message.stroke) {
                    emitError(
                        &session, id: id, code: "stroke_exists",
                        "stroke \(message.stroke) was already open; it is restarted")
                    recycle(session.strokes.remove(at: existing))
                }
                guard session.strokes.count < configuration.maxOpenStrokes else {
                    emitError(
                        &session, id: id, code: "too_many_strokes",
                        "a session has at most \(configuration.maxOpenStrokes) open strokes; begin ignored")
                    return true
                }
                session.strokes.append(
                    newStroke(
                        id: message.stroke, pointer: message.pointer, checkmark: session.checkmark,
                        turn: turn(of: session)))
                if session.multistroke != 0 { strokesChanged(session) }
                addPoints(&session, stroke: session.strokes.count - 1, id: id)
            case .points, .end, .cancel:
                guard let stroke = session.strokes.index(of: message.stroke) else {
                    emitError(
                        &session, id: id, code: "unknown_stroke",
                        "\(message.kind.name) for stroke \(message.stroke), which is not open (no begin)")
                    return true
                }
                if message.kind == .cancel {
                    recycle(session.strokes.remove(at: stroke))
                    if session.multistroke != 0 { strokesChanged(session) }
                    return true
                }
                addPoints(&session, stroke: stroke, id: id)
                if message.kind == .end {
                    let ended = session.strokes.remove(at: stroke)
                    if session.multistroke != 0 {
                        collect(ended, session: &session, id: id)
                    } else if let name = message.learn {
                        learn(ended, as: name, session: &session, id: id)
                    } else {
                        recognize(ended, session: &session, id: id)
                    }
                    recycle(ended)
                }
            case .options:
                applyOptions(&session, id: id)
            case .close:
                matchGesture(&session, id: id)
                forgetAll(session)
                dropChoice(session)
                dropThresholds(session)
                session.eventSequence += 1
                EventEncoder.closed(
                    context(session, id: id), reason: "closed", tilt: reportedTilt(of: session), into: &writer)
                publish(id)
                return false
            case .ping:
                assertionFailure("a ping is answered above")
            }
            return true
        }

        /// A stroke from the pool of finished ones (their buffers keep their capacity), or a new one.
        private mutating func newStroke(id: UInt32, pointer: UInt16, checkmark: Bool, turn: Int8) -> OpenStroke {
            if turn != 0 { metrics.strokesTurned.add(1, ordering: .relaxed) }
            guard var stroke = spareStrokes.popLast() else {
                let stroke = OpenStroke(id: id, pointer: pointer, detecting: checkmark, detector: detector)
                if turn != 0 { stroke.storage.turnDegrees = turn }
                return stroke
            }
            stroke.id = id
            stroke.pointer = pointer
            stroke.overflowed = false
            stroke.detecting = checkmark
            if turn != 0 { stroke.storage.turnDegrees = turn }
            return stroke
        }

        /// Returns a finished stroke's buffers to the pool (bounded, so idle lanes do not hoard memory).
        mutating func recycle(_ stroke: consuming OpenStroke) {
            guard spareStrokes.count < Self.spareStrokeLimit, stroke.storage.pointCapacity <= 4096 else {
                return
            }
            stroke.storage.reset()
            spareStrokes.append(stroke)
        }

        static var spareStrokeLimit: Int { 256 }

        private mutating func addPoints(_ session: inout Session, stroke index: Int, id: UnsafeRawBufferPointer) {
            guard !message.points.isEmpty, !session.strokes.overflowed(at: index) else { return }
            var fired: CheckmarkDetector.Detection?
            var held = false
            var overflowed = false
            let limit = configuration.maxPointsPerStroke
            message.points.withUnsafeBufferPointer { points in
                session.strokes.withStroke(at: index) { stroke in
                    Self.feed(&stroke, points, limit: limit, fired: &fired, held: &held, overflowed: &overflowed)
                }
            }
            // Events in the order their points came: the detector fires at most once, before any overflow. A stroke
            // still smaller than the session's minimum size holds its check back until it reaches that size.
            if fired != nil || held {
                publishCheckmark(&session, stroke: index, fired: fired, id: id)
            }
            if overflowed {
                emitError(
                    &session, id: id, code: "too_many_points",
                    "stroke \(session.strokes[index].id) passed \(limit) points; it will end without a match")
            }
        }

        /// Appends points to a stroke and feeds its detector the whole batch at once, in place; stops at the
        /// per-stroke limit (then the stroke drops its points and ends without a match).
        private static func feed(
            _ stroke: inout OpenStroke, _ points: UnsafeBufferPointer<WirePoint>, limit: Int,
            fired: inout CheckmarkDetector.Detection?, held: inout Bool, overflowed: inout Bool
        ) {
            let accepted = min(points.count, max(0, limit - stroke.pointCount))
            if accepted > 0 {
                let needed = stroke.pointCount + accepted
                if needed > stroke.storage.pointCapacity {
                    stroke.storage = stroke.storage.grown(toHold: min(max(needed, 2 * stroke.pointCount), limit))
                }
                stroke.storage.append(UnsafeBufferPointer(rebasing: points[..<accepted]))
            }
            if stroke.detecting, accepted > 0 {
                // The detector reads the positions just stored: no copy of the batch.
                fired = stroke.storage.detectAppended(accepted, times: .init(points, time: \.t))
                held = fired == nil && stroke.storage.checkmarkHeld
            }
            if accepted < points.count {
                held = false
                stroke.storage.checkmarkHeld = false
                stroke.overflowed = true
                stroke.storage.pointCount = 0
                stroke.detecting = false
                overflowed = true
            }
        }

        private mutating func recognize(_ stroke: OpenStroke, session: inout Session, id: UnsafeRawBufferPointer) {
            pendingStrokes += 1
            if stroke.detecting && stroke.storage.timesLookLikeSeconds {
                metrics.timesInSeconds.add(1, ordering: .relaxed)
            }
            let learned = templates(of: session)
            let choice = choice(of: session)
            session.eventSequence += 1
            let eventContext = context(session, id: id, stroke: stroke)
            if stroke.overflowed {
                EventEncoder.result(
                    eventContext, name: nil, score: nil, candidates: [], points: configuration.maxPointsPerStroke,
                    library: registry.entries[Int(session.library)].name, reason: "too_many_points", into: &writer)
                publish(id)
            } else {
                let (library, invariant) = (session.library, session.invariant)
                // The detector's verdict, where it ran on the whole stroke with times it could read.
                let fired =
                    stroke.detecting && !stroke.storage.timesLookLikeSeconds ? stroke.storage.checkmarkFired : nil
                let minimum = minimumSize(of: session)
                let minimumScore = minimumScore(of: session)
                stroke.storage.withPoints { points in
                    if Self.isTooSmall(points, minimum: minimum) {
                        publishTooSmall(points, library: library, context: eventContext, id: id)
                    } else {
                        publishRecognition(
                            of: points, library: library, invariant: invariant, learned: learned, choice: choice,
                            context: eventContext, checkmarkFired: fired,
                            tiltFeedback: followsTilt(session, detecting: stroke.detecting)
                                ? Unmanaged.passUnretained(tiltFeedback) : nil, minimumScore: minimumScore,
                            gestureScores: gestureScores(of: session), turn: matchTurn(of: session))
                    }
                }
            }
        }

        /// Hands a finished stroke or gesture (`gesture`: its strokes) to the sink, to be matched against a
        /// session's library (`library`, in the orientation `invariant` overrides) and the templates it `learned`,
        /// among the gestures of its `choice` only, if it made one. It takes the session's fields, not the session: a
        /// closure that captured the session copied it (34 instructions a batched message, `make profile`).
        @inline(__always)
        mutating func publishRecognition(
            of points: UnsafeBufferPointer<SIMD2<Double>>, library: Int32, invariant: Bool?,
            learned: LearnedTemplates?, choice: GestureChoice?, context: EventEncoder.Context,
            gesture: GestureStrokes? = nil, checkmarkFired: Bool? = nil,
            tiltFeedback: Unmanaged<TiltFeedback>? = nil, minimumScore: Double? = nil,
            gestureScores: [String: Double]? = nil, turn: Int8 = 0
        ) {
            let entry = registry.entries[Int(library)]
            let recognizer = entry.recognizer(invariant: invariant)
            let turn = RecognitionRequest.turn(turn, for: recognizer)
            if turn != 0 { metrics.strokesMatchedTurned.add(1, ordering: .relaxed) }
            sink.publishRecognition(
                RecognitionRequest(
                    context: context, recognizer: recognizer, library: entry.name,
                    slot: LibraryRegistry.Slot(library: library, invariant: invariant), points: points,
                    learned: learned, choice: choice, gesture: gesture, checkmarkFired: checkmarkFired,
                    tiltFeedback: tiltFeedback, minimumScore: minimumScore, gestureScores: gestureScores, turn: turn),
                writer: &writer)
        }

        private mutating func applyOptions(_ session: inout Session, id: UnsafeRawBufferPointer) {
            guard let options = message.options else { return }
            noteSettingsChanged(session.key)
            if let name = options.library {
                if let index = registry.index(of: name) {
                    session.library = Int32(index)
                } else {
                    let known = registry.entries.map(\.name).joined(separator: ", ")
                    emitError(
                        &session, id: id, code: "unknown_library", "no template library \"\(name)\" (have: \(known))")
                }
            }
            if let orientation = options.orientation { session.invariant = orientation == "invariant" }
            if let checkmark = options.checkmark { session.checkmark = checkmark }
            if let follow = options.followTilt, follow != session.followsTilt {
                // Turned off, the estimate is forgotten: turned on again, it starts over from the next matches.
                session.followsTilt = follow
                session.tilt = TiltEstimate()
            }
            if let tilt = options.tilt, session.followsTilt {
                // As if the session's matches had shown it: followed from the next stroke.
                session.tilt = TiltEstimate(degrees: Int8(tilt), samples: TiltEstimate.warmUp)
            }
            applyLearningOptions(&session, id: id)
            applyGestureChoice(session)
            applyMinimumSize(session)
            applyMinimumScore(session)
            applyGestureScores(session)
            if let multistroke = options.multistroke {
                session.multistroke = UInt16(multistroke)
                // A session that stops grouping strokes has its gesture so far matched now.
                if multistroke == 0 { matchGesture(&session, id: id) }
            }
        }
    }
}
