import Foundation
import StrokeProtocol
import StrokeRecognition
import Testing

@testable import StrokeWorker

@Suite("Gestures a session chooses")
struct GestureChoiceTests {
    typealias Processor = LearnedTemplatesTests.Processor
    typealias Producer = LearnedTemplatesTests.Producer

    /// The recorded check of the scenario vectors, as one stroke of `producer`'s.
    static func drawCheck(_ processor: inout Processor, _ producer: inout Producer) throws {
        producer.stroke += 1
        let scenario = try ScenarioReplayer.scenarios()[0]
        for message in scenario["messages"] as! [[String: Any]] {
            var json = message["json"] as! [String: Any]
            json["stroke"] = producer.stroke
            json.removeValue(forKey: "seq")
            producer.send(&processor, json)
        }
    }

    /// The last `match` or `nomatch` event: its name (nil for nomatch) and its candidates' names.
    static func lastResult(_ processor: Processor) -> (name: String?, candidates: [String]) {
        let event = SessionProcessorTests.events(processor).map(\.payload).last {
            $0["event"] as? String == "match" || $0["event"] as? String == "nomatch"
        }!
        let candidates = (event["candidates"] as! [[String: Any]]).map { $0["name"] as! String }
        return (event["event"] as? String == "match" ? event["name"] as? String : nil, candidates)
    }

    @Test("a choice narrows the session's matches to its gestures, and \"*\" lifts it; other sessions keep theirs")
    func narrowsAndLifts() throws {
        var processor = SessionProcessorTests.processor()
        var alice = Producer("alice")
        var bob = Producer("bob")
        try Self.drawCheck(&processor, &alice)
        #expect(Self.lastResult(processor).name == "check")

        alice.send(&processor, ["type": "options", "gestures": ["circle", "rectangle"]])
        try Self.drawCheck(&processor, &alice)
        let narrowed = Self.lastResult(processor)
        #expect(narrowed.name == nil, "a check is neither a circle nor a rectangle")
        #expect(Set(narrowed.candidates) == ["circle", "rectangle"])

        alice.send(&processor, ["type": "options", "gestures": ["v", "check"]])
        try Self.drawCheck(&processor, &alice)
        #expect(Self.lastResult(processor).name == "check")
        #expect(Set(Self.lastResult(processor).candidates) == ["check", "v"])

        // Bob chose nothing: all gestures.
        try Self.drawCheck(&processor, &bob)
        #expect(Self.lastResult(processor).candidates.count == 3)

        alice.send(&processor, ["type": "options", "gestures": "*"])
        try Self.drawCheck(&processor, &alice)
        #expect(Self.lastResult(processor).name == "check")
        #expect(Self.lastResult(processor).candidates.count == 3)
        #expect(processor.core.choices.isEmpty)
    }

    /// The last `nomatch` event.
    static func lastNomatch(_ processor: Processor) -> [String: Any]? {
        SessionProcessorTests.events(processor).map(\.payload).last { $0["event"] as? String == "nomatch" }
    }

    /// A tight scribble of 120 points, back and forth at irregular steps: like no gesture.
    static func scribble() -> [[Double]] {
        var points: [[Double]] = []
        for k in 0..<120 {
            let x = Double(k % 7) * 3 + Double(k) * 0.1
            let y = Double((k * 5) % 11) * 2
            points.append([x, y, Double(k) * 8])
        }
        return points
    }

    @Test("a stroke that matches a gesture outside the choice says which: not_chosen, not below_threshold")
    func notChosen() throws {
        var processor = SessionProcessorTests.processor()
        var alice = Producer("alice")
        alice.send(&processor, ["type": "options", "gestures": ["circle", "rectangle"]])
        try Self.drawCheck(&processor, &alice)
        let event = try #require(Self.lastNomatch(processor))
        #expect(event["reason"] as? String == "not_chosen")
        let unchosen = try #require(event["unchosen"] as? [String: Any])
        #expect(unchosen["name"] as? String == "check")
        #expect(
            (unchosen["score"] as? Double ?? 0)
                >= processor.core.registry.entries[0].recognizer(invariant: nil).minimumScore)
        #expect(unchosen["learned"] == nil && unchosen["backward"] == nil)
        let candidates = (event["candidates"] as! [[String: Any]]).map { $0["name"] as! String }
        #expect(Set(candidates) == ["circle", "rectangle"], "the candidates stay among the chosen gestures")

        // A stroke like no gesture at all is below the threshold, chosen or not: a tight scribble.
        let before = processor.sink.events.count
        alice.draw(&processor, Self.scribble())
        let scribble = try #require(SessionProcessorTests.events(processor).dropFirst(before).map(\.payload).last)
        #expect(scribble["event"] as? String == "nomatch")
        #expect(scribble["reason"] as? String == "below_threshold")
        #expect(scribble["unchosen"] == nil)
    }

    @Test("a gesture outside the choice that scores well above the chosen match answers, unless the margin is inf")
    func choiceMargin() throws {
        var processor = SessionProcessorTests.processor()
        var alice = Producer("alice")
        alice.send(&processor, ["type": "options", "gestures": ["v"]])
        try Self.drawCheck(&processor, &alice)
        let event = try #require(Self.lastNomatch(processor))
        #expect(event["reason"] as? String == "not_chosen")
        #expect((event["unchosen"] as? [String: Any])?["name"] as? String == "check")
        let v = try #require((event["candidates"] as? [[String: Any]])?.first)
        #expect(v["name"] as? String == "v")
        // The v reached the threshold: only the margin turned it down.
        let minimumScore = processor.core.registry.entries[0].recognizer(invariant: nil).minimumScore
        #expect((v["score"] as? Double ?? 0) >= minimumScore)

        var configuration = RecognizerConfiguration.default
        configuration.choiceMargin = .infinity
        var lenient = SessionProcessor(
            sink: CollectingSink(), configuration: WorkerConfiguration(),
            registry: try LibraryRegistry([try TemplateLibrary.builtIn()], configuration: configuration),
            metrics: WorkerMetrics())
        var bob = Producer("bob")
        bob.send(&lenient, ["type": "options", "gestures": ["v"]])
        try Self.drawCheck(&lenient, &bob)
        #expect(Self.lastResult(lenient).name == "v", "at inf, a chosen match reaching the threshold answers")
    }

    @Test("a learned gesture outside the choice is named as such, learned")
    func notChosenLearned() throws {
        var processor = SessionProcessorTests.processor()
        var carol = Producer("carol")
        carol.draw(&processor, LearnedTemplatesTests.bolt(0), learn: "bolt")
        carol.send(&processor, ["type": "options", "gestures": ["circle"]])
        carol.draw(&processor, LearnedTemplatesTests.bolt(1))
        let event = try #require(Self.lastNomatch(processor))
        #expect(event["reason"] as? String == "not_chosen")
        let unchosen = try #require(event["unchosen"] as? [String: Any])
        #expect(unchosen["name"] as? String == "bolt")
        #expect(unchosen["learned"] as? Bool == true)
    }

    @Test("a choice narrows the gestures a session learned as well as the library's")
    func learnedToo() {
        var processor = SessionProcessorTests.processor()
        var carol = Producer("carol")
        carol.draw(&processor, LearnedTemplatesTests.bolt(0), learn: "bolt")
        carol.draw(&processor, LearnedTemplatesTests.bolt(1))
        #expect(Self.lastResult(processor).name == "bolt")

        carol.send(&processor, ["type": "options", "gestures": ["x", "star"]])
        carol.draw(&processor, LearnedTemplatesTests.bolt(1))
        #expect(Set(Self.lastResult(processor).candidates).isSubset(of: ["x", "star"]))
        #expect(Self.lastResult(processor).name != "bolt")

        carol.send(&processor, ["type": "options", "gestures": ["bolt"]])
        carol.draw(&processor, LearnedTemplatesTests.bolt(2))
        #expect(Self.lastResult(processor).name == "bolt")
        #expect(Self.lastResult(processor).candidates == ["bolt"])
        let event = SessionProcessorTests.events(processor).map(\.payload).last!
        #expect(event["learned"] as? Bool == true)
    }

    @Test("a gesture of several strokes is matched among the chosen gestures too")
    func severalStrokes() {
        typealias Shapes = MultistrokeGestureTests
        var processor = Shapes.processor()
        var dana = Shapes.player("dana", &processor)
        let x = [Shapes.line([0, 0], [90, 90]), Shapes.line([90, 0], [0, 90])]
        let before = processor.sink.events.count
        Shapes.draw(&dana, &processor, x[0])
        Shapes.draw(&dana, &processor, x[1], ["last": true])
        dana.send(&processor, ["type": "options", "gestures": ["plus", "o"]])
        Shapes.draw(&dana, &processor, x[0])
        Shapes.draw(&dana, &processor, x[1], ["last": true])
        let results = Shapes.events(processor, from: before).filter { $0["strokes"] != nil }
        #expect(results.count == 2)
        #expect(results.first?["name"] as? String == "x")
        let narrowed = (results.last?["candidates"] as? [[String: Any]] ?? []).map { $0["name"] as? String }
        #expect(!narrowed.isEmpty && Set(narrowed).isSubset(of: ["plus", "o"]))
        #expect(results.last?["name"] as? String != "x")
        #expect(results.last?["strokes"] as? [Int] == [3, 4])

        // Among the o alone, it matches nothing chosen: the x it is, outside the choice.
        dana.send(&processor, ["type": "options", "gestures": ["o"]])
        Shapes.draw(&dana, &processor, x[0])
        Shapes.draw(&dana, &processor, x[1], ["last": true])
        let outside = Shapes.events(processor, from: before).last { $0["strokes"] != nil }
        #expect(outside?["event"] as? String == "nomatch")
        #expect(outside?["reason"] as? String == "not_chosen")
        #expect((outside?["unchosen"] as? [String: Any])?["name"] as? String == "x")
        #expect(outside?["strokes"] as? [Int] == [5, 6])
    }

    @Test("sessions with the same list share one choice; it goes when they close, start over or are evicted")
    func sharedAndDropped() {
        var processor = SessionProcessorTests.processor()
        var producers = ["dora", "emil", "finn"].map { Producer($0) }
        for index in producers.indices {
            // The same gestures in another order, repeated: the same choice.
            let names = index == 0 ? ["x", "circle"] : ["circle", "x", "circle"]
            producers[index].send(&processor, ["type": "options", "gestures": names])
        }
        #expect(processor.core.choices.count == 3)
        #expect(processor.core.choicePool.count == 1)
        #expect(processor.core.choices.values.allSatisfy { $0 === processor.core.choices.values.first! })
        #expect(processor.core.choices.values.first!.names == ["circle", "x"])

        producers[0].send(&processor, ["type": "close"])
        producers[1].send(&processor, ["type": "options", "checkmark": false])
        producers[1].sequence = 0  // the producer starts over at 1
        producers[1].send(&processor, ["type": "cancel", "stroke": 1])
        #expect(processor.core.choices.count == 1)
        processor.evictIdle()
        #expect(processor.core.choicePool.count == 1, "finn still holds it")

        processor.now = UInt32(processor.configuration.idleTimeoutSeconds + 1)
        processor.evictIdle()
        #expect(processor.core.choices.isEmpty)
        #expect(processor.core.choicePool.count == 0)
    }

    @Test("a choice travels with a stroke handed to the recognition helper")
    func throughTheEventPipe() throws {
        let registry = try LibraryRegistry([try TemplateLibrary.builtIn()])
        let slot = LibraryRegistry.Slot(library: 0, invariant: nil)
        var pool = GestureChoice.Pool()
        let messages = try ScenarioReplayer.scenarios()[0]["messages"] as! [[String: Any]]
        let points = messages.flatMap { (($0["json"] as! [String: Any])["points"] as? [[Double]]) ?? [] }
            .map { SIMD2($0[0], $0[1]) }
        let answers = try [nil, pool.choice(of: ["triangle", "star"])].map { choice in
            let event = try BatchedRequest.event(points: points, registry: registry, slot: slot, choice: choice)
            return (event["candidates"] as! [[String: Any]]).map { $0["name"] as! String }
        }
        #expect(answers.count == 2)
        #expect(answers.first?.first == "check")
        #expect(Set(answers.last ?? []) == ["triangle", "star"])
        let narrowed = try BatchedRequest.event(
            points: points, registry: registry, slot: slot, choice: pool.choice(of: ["triangle", "star"]))
        #expect(narrowed["reason"] as? String == "not_chosen")
        #expect((narrowed["unchosen"] as? [String: Any])?["name"] as? String == "check")
    }
}
