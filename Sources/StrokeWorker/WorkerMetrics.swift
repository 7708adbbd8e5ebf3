import Synchronization

/// Counters of a worker, shared by its threads. Lanes add their per-message counts once per batch.
public final class WorkerMetrics: Sendable {
    /// Input messages received (well-formed or not).
    public let messagesReceived = Atomic<Int>(0)
    /// Points received in well-formed messages.
    public let pointsReceived = Atomic<Int>(0)
    /// Events published.
    public let eventsPublished = Atomic<Int>(0)
    /// Events dropped for every consumer because one did not keep up within the send timeout (with
    /// `WorkerConfiguration.slowConsumers` `.wait`; by default such a consumer misses events alone, uncounted).
    public let eventsDropped = Atomic<Int>(0)
    /// Strokes matched (match or no match).
    public let strokesRecognized = Atomic<Int>(0)
    /// Strokes (and gestures of several strokes) answered with a `match`.
    public let strokesMatched = Atomic<Int>(0)
    /// Strokes answered with a `nomatch`, whatever the reason (`strokesNotChosen` included).
    public let strokesUnmatched = Atomic<Int>(0)
    /// Strokes answered with a `nomatch` because a gesture outside their session's choice matched (`not_chosen`).
    public let strokesNotChosen = Atomic<Int>(0)
    /// Strokes (and gestures) answered with a `nomatch` because they were smaller than their session's minimum size
    /// (`too_small`; included in `strokesUnmatched`).
    public let strokesTooSmall = Atomic<Int>(0)
    /// Finished strokes a lane handed to its recognition helper thread (included in `strokesRecognized`).
    public let strokesOffloaded = Atomic<Int>(0)
    /// Checkmarks detected.
    public let checkmarks = Atomic<Int>(0)
    /// Strokes that looked like a check under a millisecond after their first point, and did not fire: their
    /// producer sends point times in seconds, it seems, where the protocol asks for milliseconds.
    public let timesInSeconds = Atomic<Int>(0)
    /// Strokes whose checkmark detector judged their points turned back by their session's tilt (`followTilt`):
    /// how many strokes come from players whose hand is tilted past the estimate's dead zone.
    public let strokesTurned = Atomic<Int>(0)
    /// Strokes and gestures that the library matched turned back by their session's tilt
    /// (`WorkerConfiguration.matchFollowsTilt`), whether or not their detector ran.
    public let strokesMatchedTurned = Atomic<Int>(0)
    /// Strokes that sessions learned as templates of their own (`end` with `learn`).
    public let templatesLearned = Atomic<Int>(0)
    /// Learned templates held now, over all sessions (`--max-learned-templates` bounds it).
    public let learnedTemplates = Atomic<Int>(0)
    /// Gestures matched in sessions that group their strokes (`options.multistroke`), of one stroke or several
    /// (included in `strokesRecognized`, once each).
    public let gesturesGrouped = Atomic<Int>(0)
    /// Gestures waiting for their next stroke now, over all sessions.
    public let gesturesWaiting = Atomic<Int>(0)
    /// Input messages lost according to the producers' sequence numbers.
    public let inputGaps = Atomic<Int>(0)
    /// Sessions currently held.
    public let sessions = Atomic<Int>(0)
    /// Sessions restored from the state file at the start (`--state-file`).
    public let sessionsRestored = Atomic<Int>(0)
    /// Checkpoints written to the state file while the worker ran (`--checkpoint-interval`).
    public let checkpointsWritten = Atomic<Int>(0)
    /// CURVE handshakes refused: a client whose key is not authorized, or one without CURVE.
    public let handshakesRefused = Atomic<Int>(0)
    /// Connections cut because their CURVE key was taken off the authorized list after they were made.
    public let connectionsCut = Atomic<Int>(0)
    /// Input messages dropped unread because their connection's key is no longer authorized.
    public let messagesRevoked = Atomic<Int>(0)
    /// `ping` messages answered with a `pong`.
    public let pings = Atomic<Int>(0)
    /// Microseconds the lanes spent handling input, events and timers rather than waiting for them in poll,
    /// summed over the lanes and added once a second: its rate over wall time, divided by `lanes`, is how busy
    /// they are (1: saturated), for sizing a fleet and scaling it.
    public let laneBusyMicroseconds = Atomic<Int>(0)
    /// Times a lane's queue of events filled up with strokes in its recognition helper's hands
    /// (`OffloadingSink.queueLimit`), so that the lane stopped reading input until the helper caught up.
    public let helperWaits = Atomic<Int>(0)
    /// Microseconds the lanes spent waiting for their recognition helpers in those times, summed over the lanes
    /// (part of `laneBusyMicroseconds`): a large share of the busy time says that recognition, not the lanes' own
    /// work, bounds the worker, and that more cores are what it needs.
    public let helperWaitMicroseconds = Atomic<Int>(0)
    /// Connections open now on the worker's input endpoints: producers (or proxies) connected to its bound ones,
    /// and its own to the endpoints it connects to (`ConnectionWatch`).
    public let inputConnections = Atomic<Int>(0)
    /// Connections open now on the worker's output endpoints: consumers, or its own to proxies.
    public let outputConnections = Atomic<Int>(0)
    /// Failed attempts to connect to an endpoint the worker connects to (`connect:`), each retry counted.
    public let connectRetries = Atomic<Int>(0)
    /// Connections of the input and output endpoints that ended, whichever side ended them.
    public let disconnections = Atomic<Int>(0)
    /// Handshakes that failed on the input and output endpoints: a peer that is not ZMTP or of the wrong socket
    /// type, a CURVE key that does not fit, or a key refused (counted in `handshakesRefused` too when this worker
    /// refused it).
    public let handshakesFailed = Atomic<Int>(0)
    /// Connections the bound input and output endpoints could not take (`accept` failed: out of files, most often).
    public let acceptFailures = Atomic<Int>(0)
    /// Producers' connections cut for sending more than a limit without finishing a message: libzmq keeps such a
    /// message's frames in memory until its last one arrives (`UnfinishedMessageTracker`).
    public let unfinishedMessagesCut = Atomic<Int>(0)
    /// Consumers' connections cut for holding subscriptions past `--max-subscription-bytes`: libzmq keeps every
    /// subscription in memory for as long as its connection lasts (`SubscriptionLedger`).
    public let subscribersCut = Atomic<Int>(0)
    /// The worker's lanes (`--lanes`).
    public let lanes = Atomic<Int>(0)
    private let errors = Mutex<[String: Int]>([:])

    /// Creates zeroed counters.
    public init() {}

    /// Counts how a finished stroke was answered.
    public func count(_ outcome: RecognitionRequest.Outcome) {
        var counts = OutcomeCounts()
        counts.count(outcome)
        add(counts)
    }

    /// How a batch of finished strokes was answered, counted by the thread that recognized them and added to the
    /// shared counters once (`add(_:)`): a lane's counters share cache lines with these.
    public struct OutcomeCounts: Sendable {
        var matched = 0
        var unmatched = 0
        var notChosen = 0

        /// No strokes yet.
        public init() {}

        /// Counts one stroke's answer.
        public mutating func count(_ outcome: RecognitionRequest.Outcome) {
            switch outcome {
            case .match: matched += 1
            case .noMatch: unmatched += 1
            case .notChosen:
                unmatched += 1
                notChosen += 1
            }
        }
    }

    /// Adds a batch's counts of answers.
    public func add(_ counts: OutcomeCounts) {
        if counts.matched > 0 { strokesMatched.add(counts.matched, ordering: .relaxed) }
        if counts.unmatched > 0 { strokesUnmatched.add(counts.unmatched, ordering: .relaxed) }
        if counts.notChosen > 0 { strokesNotChosen.add(counts.notChosen, ordering: .relaxed) }
    }

    /// Counts an error event by code.
    public func countError(_ code: String) {
        errors.withLock { $0[code, default: 0] += 1 }
    }

    /// Error counts by code.
    public var errorCounts: [String: Int] { errors.withLock { $0 } }

    /// A snapshot of every counter.
    public var snapshot: [String: Int] {
        var values: [String: Int] = [
            "messagesReceived": messagesReceived.load(ordering: .relaxed),
            "pointsReceived": pointsReceived.load(ordering: .relaxed),
            "eventsPublished": eventsPublished.load(ordering: .relaxed),
            "eventsDropped": eventsDropped.load(ordering: .relaxed),
            "strokesRecognized": strokesRecognized.load(ordering: .relaxed),
            "strokesMatched": strokesMatched.load(ordering: .relaxed),
            "strokesUnmatched": strokesUnmatched.load(ordering: .relaxed),
            "strokesNotChosen": strokesNotChosen.load(ordering: .relaxed),
            "strokesTooSmall": strokesTooSmall.load(ordering: .relaxed),
            "strokesOffloaded": strokesOffloaded.load(ordering: .relaxed),
            "checkmarks": checkmarks.load(ordering: .relaxed),
            "timesInSeconds": timesInSeconds.load(ordering: .relaxed),
            "strokesTurned": strokesTurned.load(ordering: .relaxed),
            "strokesMatchedTurned": strokesMatchedTurned.load(ordering: .relaxed),
            "templatesLearned": templatesLearned.load(ordering: .relaxed),
            "learnedTemplates": learnedTemplates.load(ordering: .relaxed),
            "gesturesGrouped": gesturesGrouped.load(ordering: .relaxed),
            "gesturesWaiting": gesturesWaiting.load(ordering: .relaxed),
            "inputGaps": inputGaps.load(ordering: .relaxed),
            "sessions": sessions.load(ordering: .relaxed),
            "sessionsRestored": sessionsRestored.load(ordering: .relaxed),
            "checkpointsWritten": checkpointsWritten.load(ordering: .relaxed),
            "handshakesRefused": handshakesRefused.load(ordering: .relaxed),
            "connectionsCut": connectionsCut.load(ordering: .relaxed),
            "messagesRevoked": messagesRevoked.load(ordering: .relaxed),
            "pings": pings.load(ordering: .relaxed),
            "laneBusyMicroseconds": laneBusyMicroseconds.load(ordering: .relaxed),
            "helperWaits": helperWaits.load(ordering: .relaxed),
            "helperWaitMicroseconds": helperWaitMicroseconds.load(ordering: .relaxed),
            "lanes": lanes.load(ordering: .relaxed),
            "inputConnections": inputConnections.load(ordering: .relaxed),
            "outputConnections": outputConnections.load(ordering: .relaxed),
            "connectRetries": connectRetries.load(ordering: .relaxed),
            "disconnections": disconnections.load(ordering: .relaxed),
            "handshakesFailed": handshakesFailed.load(ordering: .relaxed),
            "acceptFailures": acceptFailures.load(ordering: .relaxed),
            "unfinishedMessagesCut": unfinishedMessagesCut.load(ordering: .relaxed),
            "subscribersCut": subscribersCut.load(ordering: .relaxed),
            "logLinesLost": LogOutput.linesLost,
            "openFiles": OpenFileLimit.openCount() ?? 0,
            "openFilesLimit": min(OpenFileLimit.current ?? 0, Int(Int32.max)),
        ]
        for (code, count) in errorCounts { values["errors.\(code)"] = count }
        return values
    }
}
