import Foundation
import StrokeProtocol
import StrokeRecognition
import Testing

@testable import StrokeWorker

@Suite("Gestures a session learns")
struct LearnedTemplatesTests {
    typealias Processor = SessionProcessor<CollectingSink>

    /// A "Z" (not one of the built-in gestures), a little different for each `k`: right, down-left, right.
    static func bolt(_ k: Int) -> [[Double]] {
        let corners: [SIMD2<Double>] = [
            SIMD2(0, 0), SIMD2(60 + Double(k % 3) * 4, 2), SIMD2(4, 58 - Double(k % 2) * 3), SIMD2(62, 60),
        ]
        var points = [[Double]]()
        for segment in 0..<3 {
            for step in 0..<12 {
                let u = Double(step) / 12
                let p = corners[segment] + (corners[segment + 1] - corners[segment]) * u
                points.append([100 + p.x + Double(k), 100 + p.y, Double(1000 + 16 * points.count)])
            }
        }
        points.append([100 + corners[3].x + Double(k), 100 + corners[3].y, Double(1000 + 16 * points.count)])
        return points
    }

    /// A session's producer: numbers its messages and strokes.
    struct Producer {
        let session: String
        var sequence: UInt32 = 0
        var stroke: UInt32 = 0

        init(_ session: String) { self.session = session }

        mutating func send(_ processor: inout Processor, _ fields: [String: Any]) {
            sequence += 1
            var object = fields
            object["seq"] = sequence
            let payload = try! JSONSerialization.data(withJSONObject: object)
            SessionProcessorTests.feed(&processor, [Array(ShardKey.topic(for: session).utf8), Array(payload)])
        }

        /// Sends a whole stroke: begin with its points, then end (with `learn`, when given).
        mutating func draw(_ processor: inout Processor, _ points: [[Double]], learn: String? = nil) {
            stroke += 1
            send(&processor, ["type": "begin", "stroke": stroke, "points": points])
            var end: [String: Any] = ["type": "end", "stroke": stroke]
            if let learn { end["learn"] = learn }
            send(&processor, end)
        }
    }

    static func lastEvent(_ processor: Processor) -> [String: Any] {
        try! JSONSerialization.jsonObject(with: Data(processor.sink.events.last!.payload.utf8)) as! [String: Any]
    }

    static func learnedCount(_ processor: Processor) -> Int {
        processor.metrics.learnedTemplates.load(ordering: .relaxed)
    }

    // MARK: - Learning and matching

    @Test("a learned stroke gets a learned event, and a later one like it matches it, in that session only")
    func learnThenMatch() {
        var processor = SessionProcessorTests.processor()
        var alice = Producer("alice")
        var bob = Producer("bob")
        // Before: the built-in library knows no Z.
        bob.draw(&processor, Self.bolt(1))
        let before = Self.lastEvent(processor)
        #expect(before["name"] as? String != "bolt")

        alice.draw(&processor, Self.bolt(0), learn: "bolt")
        let learned = Self.lastEvent(processor)
        #expect(learned["event"] as? String == "learned")
        #expect(learned["name"] as? String == "bolt")
        #expect(learned["templates"] as? Int == 1)
        #expect(learned["points"] as? Int == Self.bolt(0).count)
        #expect(learned["stroke"] as? Int == 1 && learned["eventSeq"] as? Int == 1 && learned["seq"] as? Int == 2)
        #expect(Self.learnedCount(processor) == 1)
        #expect(processor.metrics.templatesLearned.load(ordering: .relaxed) == 1)

        alice.draw(&processor, Self.bolt(1))
        let match = Self.lastEvent(processor)
        #expect(match["event"] as? String == "match")
        #expect(match["name"] as? String == "bolt")
        #expect(match["learned"] as? Bool == true)
        #expect((match["score"] as? Double ?? 0) > 0.8)
        #expect(match["library"] as? String == "default")
        let candidates = match["candidates"] as! [[String: Any]]
        #expect(candidates.count == 3)
        #expect(candidates[0]["learned"] as? Bool == true)
        #expect(candidates.dropFirst().allSatisfy { $0["learned"] == nil }, "library candidates carry no flag")

        // Another session never sees alice's gesture.
        bob.draw(&processor, Self.bolt(1))
        let other = Self.lastEvent(processor)
        #expect(other["name"] as? String != "bolt")
        #expect((other["candidates"] as! [[String: Any]]).allSatisfy { $0["name"] as? String != "bolt" })
    }

    @Test("a stroke drawn in tiny coordinates is learned, and a later one like it matches it")
    func tinyCoordinates() {
        // Its path length comes out 0 (the squares of its segments vanish), but its points differ: before session
        // 82 it was refused as having no extent.
        func tiny(_ points: [[Double]]) -> [[Double]] { points.map { [$0[0] * 1e-300, $0[1] * 1e-300, $0[2]] } }
        var processor = SessionProcessorTests.processor()
        var alice = Producer("alice")
        alice.draw(&processor, tiny(Self.bolt(0)), learn: "bolt")
        #expect(Self.lastEvent(processor)["event"] as? String == "learned", "\(processor.sink.events.map(\.payload))")
        alice.draw(&processor, tiny(Self.bolt(1)))
        let match = Self.lastEvent(processor)
        #expect(match["name"] as? String == "bolt" && match["learned"] as? Bool == true, "\(match)")
    }

    @Test("a learned gesture's score stands for as many of its templates as its library's gestures' do")
    func scoredAsTheLibrary() throws {
        // The built-in library's gestures are scored by their 3 nearest templates (`TemplateLibrary.neighbors`).
        #expect(try TemplateLibrary.builtIn().neighbors == 3)
        var processor = SessionProcessorTests.processor()
        var dana = Producer("dana")
        func score() throws -> Double {
            dana.draw(&processor, Self.bolt(0))
            let match = Self.lastEvent(processor)
            #expect(match["name"] as? String == "bolt" && match["learned"] as? Bool == true)
            return try #require(match["score"] as? Double)
        }
        dana.draw(&processor, Self.bolt(0), learn: "bolt")
        let one = try score()
        #expect(one > 0.9)
        // Two more examples, unlike the stroke drawn again: scored by the nearest alone it would stay as close; by
        // its three nearest it is further.
        dana.draw(&processor, Self.bolt(1), learn: "bolt")
        dana.draw(&processor, Self.bolt(2), learn: "bolt")
        let three = try score()
        #expect(three < one - 0.01, "\(three) against \(one)")
    }

    @Test("sessions with ids past 32 bytes (kept on the heap) learn apart from each other, too")
    func longSessionIDs() {
        var processor = SessionProcessorTests.processor()
        let long = String(repeating: "room-1234567890/", count: 6)  // 96 bytes
        var first = Producer(long + "a")
        var second = Producer(long + "b")
        first.draw(&processor, Self.bolt(0), learn: "bolt")
        second.draw(&processor, Self.bolt(1))
        #expect(Self.lastEvent(processor)["name"] as? String != "bolt")
        first.draw(&processor, Self.bolt(1))
        #expect(Self.lastEvent(processor)["name"] as? String == "bolt")
        first.send(&processor, ["type": "close"])
        #expect(processor.core.learned.isEmpty && Self.learnedCount(processor) == 0)
    }

    @Test("the learned event names the other gesture the stroke comes nearest to, library's or learned")
    func nearest() throws {
        var processor = SessionProcessorTests.processor()
        var producer = Producer("dana")
        let check = try LibraryReloadTests.checkPoints().enumerated().map { [$1.x, $1.y, Double(16 * $0)] }
        // A check taught under another name: the library's check is what its strokes would be taken for.
        producer.draw(&processor, check, learn: "tick")
        var event = Self.lastEvent(processor)
        #expect(event["event"] as? String == "learned")
        var nearest = try #require(event["nearest"] as? [String: Any])
        #expect(nearest["name"] as? String == "check" && nearest["learned"] == nil)
        // As close as the stroke's own match with the check (0.8249 in the protocol's example).
        let tickScore = try #require(nearest["score"] as? Double)
        #expect(tickScore > 0.8)
        // A Z, which the library lacks: something of it comes nearest, not as near as the check to the tick.
        producer.draw(&processor, Self.bolt(0), learn: "bolt")
        event = Self.lastEvent(processor)
        nearest = try #require(event["nearest"] as? [String: Any])
        let boltNearest = try #require(nearest["name"] as? String)
        #expect(!["bolt", "tick"].contains(boltNearest) && nearest["learned"] == nil)
        let boltScore = try #require(nearest["score"] as? Double)
        #expect(boltScore < tickScore)
        // Another Z under a new name: the session's own bolt, learned, comes nearest, nearer than any library's.
        producer.draw(&processor, Self.bolt(1), learn: "zap")
        nearest = try #require(Self.lastEvent(processor)["nearest"] as? [String: Any])
        #expect(nearest["name"] as? String == "bolt" && nearest["learned"] as? Bool == true)
        #expect((nearest["score"] as? Double ?? 0) > boltScore)
        // A second example of bolt is never its own nearest: the other Z is.
        producer.draw(&processor, Self.bolt(2), learn: "bolt")
        event = Self.lastEvent(processor)
        #expect(event["templates"] as? Int == 4)
        #expect((event["nearest"] as? [String: Any])?["name"] as? String == "zap")
    }

    @Test("the library's gestures still match in a session that learned some, with no learned flag")
    func libraryStillMatches() throws {
        var processor = SessionProcessorTests.processor()
        var producer = Producer("carol")
        producer.draw(&processor, Self.bolt(0), learn: "bolt")
        // The recorded check of the scenario vectors, sent as that session's next stroke.
        let scenario = try ScenarioReplayer.scenarios()[0]
        for message in scenario["messages"] as! [[String: Any]] {
            var json = message["json"] as! [String: Any]
            json["stroke"] = 7
            json.removeValue(forKey: "seq")
            producer.send(&processor, json)
        }
        let match = Self.lastEvent(processor)
        #expect(match["event"] as? String == "match" && match["name"] as? String == "check")
        #expect(match["learned"] == nil)
    }

    @Test("a session on a library with no templates matches its own gestures only")
    func ownGesturesOnly() throws {
        let registry = try LibraryRegistry([try TemplateLibrary.builtIn(), TemplateLibrary(name: "none")])
        var processor = SessionProcessor(
            sink: CollectingSink(), configuration: WorkerConfiguration(), registry: registry, metrics: WorkerMetrics())
        var producer = Producer("nadia")
        producer.send(&processor, ["type": "options", "library": "none"])
        producer.draw(&processor, Self.bolt(1))
        let before = Self.lastEvent(processor)
        #expect(before["event"] as? String == "nomatch" && (before["candidates"] as? [Any])?.isEmpty == true)
        producer.draw(&processor, Self.bolt(0), learn: "bolt")
        producer.draw(&processor, Self.bolt(2))
        let match = Self.lastEvent(processor)
        #expect(match["name"] as? String == "bolt" && match["library"] as? String == "none")
        #expect((match["candidates"] as? [[String: Any]])?.count == 1)
    }

    @Test("in a library whose strokes go either way, its gestures match drawn backward, and learned ones as drawn")
    func eitherWayRound() throws {
        var round = TemplateLibrary(name: "round")
        round.add(
            GestureTemplate(
                name: "circle",
                points: (0...32).map { k in
                    let angle = -2 * Double.pi * Double(k) / 32
                    return SIMD2(50 + 40 * cos(angle), 50 + 40 * sin(angle))
                }))
        round.add(GestureTemplate(name: "caret", points: [[0, 90], [45, 0], [90, 90]]))
        round.strokeDirection = .any
        let registry = try LibraryRegistry([try TemplateLibrary.builtIn(), round])
        var processor = SessionProcessor(
            sink: CollectingSink(), configuration: WorkerConfiguration(), registry: registry, metrics: WorkerMetrics())
        var producer = Producer("rhea")
        producer.send(&processor, ["type": "options", "library": "round", "checkmark": false])
        // Clockwise on screen: the template's circle the other way round.
        let clockwise = (0...40).map { k -> [Double] in
            let angle = 2 * Double.pi * Double(k) / 40
            return [200 + 60 * cos(angle), 200 + 60 * sin(angle), Double(16 * k)]
        }
        producer.draw(&processor, clockwise)
        let circle = Self.lastEvent(processor)
        #expect(circle["name"] as? String == "circle" && circle["library"] as? String == "round")
        // The player's own gesture is matched the way they drew it.
        producer.draw(&processor, Self.bolt(0), learn: "bolt")
        producer.draw(&processor, Self.bolt(1))
        #expect(Self.lastEvent(processor)["name"] as? String == "bolt")
        producer.draw(&processor, Self.bolt(1).reversed().enumerated().map { [$1[0], $1[1], Double(16 * $0)] })
        #expect(Self.lastEvent(processor)["name"] as? String != "bolt")
    }

    @Test("options follow: a session that turns rotation-invariant matches its gesture drawn upside down")
    func orientationFollows() {
        var processor = SessionProcessorTests.processor()
        var producer = Producer("dave")
        producer.draw(&processor, Self.bolt(0), learn: "bolt")
        let upsideDown = Self.bolt(1).map { [400 - $0[0], 400 - $0[1], $0[2]] }
        producer.draw(&processor, upsideDown)
        #expect(Self.lastEvent(processor)["name"] as? String != "bolt", "the default library is orientation-sensitive")
        producer.send(&processor, ["type": "options", "orientation": "invariant"])
        producer.draw(&processor, upsideDown)
        let match = Self.lastEvent(processor)
        #expect(match["name"] as? String == "bolt" && match["learned"] as? Bool == true)
    }

    // MARK: - Pieces

    @Test("merged candidates: one per name with the better score, best first, the library's first on a tie")
    func merged() {
        let library = [
            RecognitionResult.Candidate(name: "a", score: 0.9, distance: 0),
            RecognitionResult.Candidate(name: "b", score: 0.7, distance: 0),
            RecognitionResult.Candidate(name: "c", score: 0.6, distance: 0),
        ]
        let learned = [
            RecognitionResult.Candidate(name: "b", score: 0.95, distance: 0),
            RecognitionResult.Candidate(name: "a", score: 0.5, distance: 0),
            RecognitionResult.Candidate(name: "d", score: 0.6, distance: 0),
        ]
        let merged = LearnedTemplates.merged(library: library, learned: learned, limit: 4)
        #expect(merged.map(\.name) == ["b", "a", "c", "d"])
        #expect(merged.map(\.learned) == [true, false, false, true])
        #expect(merged.map(\.score) == [0.95, 0.9, 0.6, 0.6])
        #expect(LearnedTemplates.merged(library: library, learned: [], limit: 2).map(\.name) == ["a", "b"])
    }

    @Test("the JSON encoder writes learn and forget, and the decoder reads them back")
    func codec() throws {
        let decoder = InputDecoder(maximumPointsPerMessage: 100)
        for message in [
            InputMessage(kind: .end, sequence: 3, stroke: 2, learn: "fire ball"),
            InputMessage(kind: .options, sequence: 4, options: SessionOptions(forget: "*")),
        ] {
            let bytes = JSONInputEncoder.encode(message)
            var decoded = InputMessage()
            try bytes.withUnsafeBytes { try decoder.decode($0, into: &decoded) }
            #expect(decoded == message)
        }
        // A message decoded after one with `learn` does not keep it.
        var decoded = InputMessage()
        try JSONInputEncoder.encode(InputMessage(kind: .end, sequence: 1, stroke: 1, learn: "x")).withUnsafeBytes {
            try decoder.decode($0, into: &decoded)
        }
        try JSONInputEncoder.encode(InputMessage(kind: .end, sequence: 2, stroke: 1)).withUnsafeBytes {
            try decoder.decode($0, into: &decoded)
        }
        #expect(decoded.learn == nil)
    }
}
