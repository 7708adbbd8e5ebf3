import Foundation
import StrokeProtocol
import StrokeRecognition
import Testing

@testable import StrokeWorker

/// A session's own threshold (`options` with `minimumScore`): the higher of it and its library's applies.
@Suite("Session processor: a session's minimumScore option")
struct MinimumScoreTests {
    typealias Processor = SessionProcessor<CollectingSink>
    typealias Producer = LearnedTemplatesTests.Producer

    /// Recorded strokes of two subjects of the $1 logs (shipped for the recognizer's tests).
    static let logs: [DollarLog] = {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../StrokeRecognitionTests/Fixtures/dollar1-mini").standardized.path
        return (try? DollarLog.loadDataset(directory)) ?? []
    }()

    /// The recorded check, as `[x, y, t]`.
    static var check: [[Double]] { TiltFollowingTests.stroke("check", index: 1, turnedBy: 0) }

    /// The results (`match` and `nomatch`) of `session`, as "name score" or "nomatch reason".
    static func results(_ processor: Processor, _ session: String) -> [String] {
        MinimumSizeTests.events(processor, session).compactMap { event -> String? in
            switch event["event"] as? String {
            case "match": return "\(event["name"]!) \(event["score"]!)"
            case "nomatch": return "nomatch \(event["reason"]!)"
            default: return nil
            }
        }
    }

    /// A processor with the built-in library and a copy of it named `name`, changed by `change`.
    static func processor(copyNamed name: String, _ change: (inout TemplateLibrary) -> Void) throws -> Processor {
        var copy = try TemplateLibrary.builtIn()
        copy.name = name
        change(&copy)
        return SessionProcessor(
            sink: CollectingSink(), configuration: WorkerConfiguration(),
            registry: try LibraryRegistry([try TemplateLibrary.builtIn(), copy]), metrics: WorkerMetrics())
    }

    /// A processor with the built-in library and a copy of it named "strict" whose threshold is `score`.
    static func processor(strictCopyAt score: Double) throws -> Processor {
        try processor(copyNamed: "strict") { $0.minimumScore = score }
    }

    @Test("a session that raises its threshold above a stroke's score gets a nomatch; 0 gives the library's back")
    func raisedAndDropped() throws {
        var processor = SessionProcessorTests.processor()
        var a = Producer("a")
        var bystander = Producer("b")
        a.draw(&processor, Self.check)
        let score = try #require(MinimumSizeTests.events(processor, "a").last?["score"] as? Double)
        #expect(score > 0.8 && score < 0.9)
        a.send(&processor, ["type": "options", "minimumScore": 0.9])
        a.draw(&processor, Self.check)
        bystander.draw(&processor, Self.check)
        a.send(&processor, ["type": "options", "minimumScore": 0.8])
        a.draw(&processor, Self.check)
        a.send(&processor, ["type": "options", "minimumScore": 0])
        a.draw(&processor, Self.check)
        #expect(
            Self.results(processor, "a") == [
                "check \(score)", "nomatch below_threshold", "check \(score)", "check \(score)",
            ])
        #expect(Self.results(processor, "b") == ["check \(score)"])
        // The nomatch still lists the candidates, best first.
        let nomatch = try #require(
            MinimumSizeTests.events(processor, "a").first { $0["event"] as? String == "nomatch" })
        #expect((nomatch["candidates"] as? [[String: Any]])?.first?["name"] as? String == "check")
        #expect(processor.core.minimumScores.isEmpty)
    }

    @Test("below the library's own threshold the session's changes nothing: the higher of the two applies")
    func higherApplies() throws {
        var processor = try Self.processor(strictCopyAt: 0.9)
        var a = Producer("a")
        a.send(&processor, ["type": "options", "library": "strict", "minimumScore": 0.5])
        a.draw(&processor, Self.check)
        #expect(Self.results(processor, "a") == ["nomatch below_threshold"])
    }

    @Test("a session's threshold gives the answers a copy of its library with that threshold gives, stroke for stroke")
    func sameAsAStricterCopy() throws {
        var processor = try Self.processor(strictCopyAt: 0.8)
        var own = Producer("own")
        var copy = Producer("copy")
        own.send(&processor, ["type": "options", "minimumScore": 0.8])
        copy.send(&processor, ["type": "options", "library": "strict"])
        #expect(Self.logs.count >= 80)
        for log in Self.logs {
            let points = log.points.map { [$0.x, $0.y, $0.time] }
            own.draw(&processor, points)
            copy.draw(&processor, points)
        }
        let answers = Self.results(processor, "own")
        #expect(answers.count == Self.logs.count && answers == Self.results(processor, "copy"))
        // Some of these strokes score under 0.8 and are turned away; most do not.
        let turnedAway = answers.filter { $0.hasPrefix("nomatch") }.count
        #expect(turnedAway > 0 && turnedAway < answers.count / 2)
    }

    @Test("it applies to the session's learned gestures, and to a stroke recognized off the lane")
    func learnedAndOffloaded() throws {
        var processor = SessionProcessorTests.processor()
        var wizard = Producer("wizard")
        wizard.draw(&processor, LearnedTemplatesTests.bolt(0), learn: "bolt")
        wizard.send(&processor, ["type": "options", "minimumScore": 0.99])
        wizard.draw(&processor, LearnedTemplatesTests.bolt(1))
        wizard.send(&processor, ["type": "options", "minimumScore": 0])
        wizard.draw(&processor, LearnedTemplatesTests.bolt(1))
        let results = Self.results(processor, "wizard")
        #expect(results.count == 2 && results[0] == "nomatch below_threshold" && results[1].hasPrefix("bolt "))

        // Carried by a batch to a helper thread, the request keeps its threshold.
        #expect([nil, 0.999].map { Self.offloadedCheck(minimumScore: $0) } == [.match, .noMatch])
    }

    /// Whether the recorded check, carried by a batch to a helper thread as a request with these thresholds, matched.
    static func offloadedCheck(minimumScore: Double? = nil, gestureScores: [String: Double]? = nil)
        -> RecognitionRequest.Outcome
    {
        let registry = SessionProcessorTests.registry
        let points = logs.first { $0.gesture == "check" }!.points.map(\.position)
        var batch = EventPipe.Batch()
        Array("s".utf8).withUnsafeBytes { id in
            points.withUnsafeBufferPointer { points in
                batch.append(
                    RecognitionRequest(
                        context: .init(session: id, eventSequence: 1, sequence: 1, stroke: 1),
                        recognizer: registry.entries[0].recognizer(invariant: nil), library: "default",
                        slot: .init(library: 0, invariant: nil), points: points, minimumScore: minimumScore,
                        gestureScores: gestureScores))
            }
        }
        var writer = JSONWriter()
        var tiltSamples: [TiltFeedback.Sample] = []
        let metrics = WorkerMetrics()
        batch.forEachEvent(
            encodingRequestsWith: &writer, registry: registry, metrics: metrics, tiltSamples: &tiltSamples
        ) { _, _ in }
        return metrics.strokesMatched.load(ordering: .relaxed) == 1 ? .match : .noMatch
    }

    @Test("kept in a snapshot and a checkpoint, restored; dropped when the producer starts over or the session closes")
    func keptAndDropped() throws {
        var processor = SessionProcessorTests.processor()
        var a = Producer("a")
        var b = Producer("b")
        var c = Producer("c")
        a.send(&processor, ["type": "options", "minimumScore": 0.9])
        b.send(&processor, ["type": "options", "minimumScore": 0.95])
        c.send(&processor, ["type": "options", "minimumSize": 20])
        let snapshots = processor.snapshot()
        #expect(snapshots.first { $0.session == "a" }?.minimumScore == 0.9)
        // Each once, and the session whose only option is a minimum size too.
        #expect(processor.checkpoint().map(\.session).sorted() == ["a", "b", "c"])
        var restored = SessionProcessorTests.processor()
        #expect(restored.restore(snapshots).restored == 3)
        var resumed = Producer("a")
        resumed.sequence = try #require(snapshots.first { $0.session == "a" }?.seq)
        resumed.draw(&restored, Self.check)
        #expect(Self.results(restored, "a") == ["nomatch below_threshold"])
        // A snapshot with a score out of range is left out, and says why.
        let bad = SessionSnapshot(session: "d", seq: 1, eventSeq: 0, library: "default", minimumScore: 1.5)
        #expect(restored.restore([bad]).skipped.first?.contains("minimumScore 1.5") == true)

        // The producer starts over (seq 1 after 3): the library's threshold again; b closes.
        a.draw(&processor, Self.check)
        var again = Producer("a")
        again.draw(&processor, Self.check)
        b.send(&processor, ["type": "close"])
        let results = Self.results(processor, "a")
        #expect(results.count == 2 && results[0] == "nomatch below_threshold" && results[1].hasPrefix("check "))
        #expect(processor.core.minimumScores.isEmpty)
    }
}
