import Foundation
import StrokeProtocol
import StrokeRecognition
import Testing

@testable import StrokeWorker

@Suite("Gestures of several strokes in the worker")
struct MultistrokeGestureTests {
    typealias Processor = SessionProcessor<CollectingSink>
    typealias Producer = LearnedTemplatesTests.Producer

    /// A straight stroke from `a` to `b` as wire points `[x, y, t]`, 11 points 16 ms apart from `t`.
    static func line(_ a: SIMD2<Double>, _ b: SIMD2<Double>, t: Double = 1000) -> [[Double]] {
        (0...10).map { step in
            let p = a + (b - a) * (Double(step) / 10)
            return [p.x, p.y, t + Double(16 * step)]
        }
    }

    /// The built-in library, and `symbols`: an x and a plus of two strokes each, and an o of one.
    static let registry: LibraryRegistry = {
        func path(_ stroke: [[Double]]) -> [SIMD2<Double>] { stroke.map { SIMD2($0[0], $0[1]) } }
        var symbols = TemplateLibrary(name: "symbols")
        symbols.add(
            GestureTemplate(name: "x", strokes: [path(line([0, 0], [90, 90])), path(line([90, 0], [0, 90]))]))
        symbols.add(
            GestureTemplate(name: "plus", strokes: [path(line([0, 45], [90, 45])), path(line([45, 0], [45, 90]))]))
        let circle: [SIMD2<Double>] = (0...32).map { (k: Int) -> SIMD2<Double> in
            let angle = Double(k) * Double.pi / 16
            return SIMD2(45 + 45 * cos(angle), 45 + 45 * sin(angle))
        }
        symbols.add(GestureTemplate(name: "o", points: circle))
        return try! LibraryRegistry([try! TemplateLibrary.builtIn(), symbols])
    }()

    static func processor(multistroke: Int = 0) -> Processor {
        var configuration = WorkerConfiguration()
        configuration.multistrokeMilliseconds = multistroke
        return SessionProcessor(
            sink: CollectingSink(), configuration: configuration, registry: registry, metrics: WorkerMetrics())
    }

    static func events(_ processor: Processor, from start: Int = 0) -> [[String: Any]] {
        processor.sink.events[start...].map {
            try! JSONSerialization.jsonObject(with: Data($0.payload.utf8)) as! [String: Any]
        }
    }

    /// A producer whose session uses the symbols and groups strokes that follow within `gap` ms.
    static func player(_ name: String, _ processor: inout Processor, gap: Int = 500) -> Producer {
        var producer = Producer(name)
        producer.send(&processor, ["type": "options", "library": "symbols", "multistroke": gap])
        return producer
    }

    /// Sends one stroke: begin with its points, then end with `fields`.
    static func draw(
        _ producer: inout Producer, _ processor: inout Processor, _ points: [[Double]], _ fields: [String: Any] = [:]
    ) {
        producer.stroke += 1
        producer.send(&processor, ["type": "begin", "stroke": producer.stroke, "points": points])
        producer.send(&processor, fields.merging(["type": "end", "stroke": producer.stroke]) { a, _ in a })
    }

    // MARK: - Grouping

    @Test("strokes wait for the gap, then are matched together in any order, with their ids")
    func matchedAfterTheGap() {
        var processor = Self.processor()
        processor.milliseconds = 1_000
        var alice = Self.player("alice", &processor)
        let before = processor.sink.events.count
        // The x's second stroke first, drawn the other way.
        Self.draw(&alice, &processor, Self.line([0, 90], [90, 0]))
        processor.milliseconds = 1_200
        Self.draw(&alice, &processor, Self.line([90, 90], [0, 0]))
        #expect(processor.sink.events.count == before, "nothing before the gap passes")
        processor.milliseconds = 1_699
        processor.matchDueGestures()
        #expect(processor.sink.events.count == before)
        #expect(processor.nextGestureDeadline == 1_700)
        processor.milliseconds = 1_700
        processor.matchDueGestures()
        let events = Self.events(processor, from: before)
        #expect(events.count == 1)
        #expect(events.first?["event"] as? String == "match")
        #expect(events.first?["name"] as? String == "x")
        #expect(events.first?["strokes"] as? [Int] == [1, 2])
        #expect(events.first?["stroke"] as? Int == 2)
        #expect(events.first?["seq"] as? Int == 5, "answers the last stroke's end")
        #expect(events.first?["points"] as? Int == 22)
        #expect(processor.pendingGestureCount == 0)
        #expect(processor.nextGestureDeadline == .max)
        #expect(processor.metrics.gesturesGrouped.load(ordering: .relaxed) == 1)
    }

    @Test("a stroke that begins within the gap joins the gesture; an open stroke holds it")
    func openStrokeHolds() {
        var processor = Self.processor()
        var bob = Self.player("bob", &processor)
        let before = processor.sink.events.count
        Self.draw(&bob, &processor, Self.line([0, 45], [90, 45]))
        #expect(processor.nextGestureDeadline == 500)
        bob.stroke += 1
        bob.send(&processor, ["type": "begin", "stroke": bob.stroke, "points": Self.line([45, 0], [45, 45])])
        processor.milliseconds = 10_000
        processor.matchDueGestures()
        #expect(processor.sink.events.count == before, "a stroke is open: the gesture waits for it")
        bob.send(&processor, ["type": "end", "stroke": bob.stroke, "points": Self.line([45, 50], [45, 90])])
        #expect(processor.nextGestureDeadline == 10_500)
        processor.milliseconds = 10_500
        processor.matchDueGestures()
        let events = Self.events(processor, from: before)
        #expect(events.map { $0["name"] as? String } == ["plus"])
    }

    @Test("last: true matches at once; a cancelled stroke leaves the others waiting")
    func lastAndCancel() {
        var processor = Self.processor()
        var carol = Self.player("carol", &processor)
        let before = processor.sink.events.count
        Self.draw(&carol, &processor, Self.line([0, 0], [90, 90]))
        carol.stroke += 1
        carol.send(&processor, ["type": "begin", "stroke": carol.stroke, "points": Self.line([0, 0], [5, 5])])
        carol.send(&processor, ["type": "cancel", "stroke": carol.stroke])
        #expect(processor.nextGestureDeadline == 500, "the wait starts again once no stroke is open")
        Self.draw(&carol, &processor, Self.line([90, 0], [0, 90]), ["last": true])
        let events = Self.events(processor, from: before)
        #expect(events.map { $0["name"] as? String } == ["x"])
        #expect(events.first?["strokes"] as? [Int] == [1, 3])
        #expect(processor.pendingGestureCount == 0)
    }

    @Test("one stroke alone is a gesture too; sessions wait apart")
    func sessionsApart() {
        var processor = Self.processor()
        var dave = Self.player("dave", &processor, gap: 100)
        var erin = Self.player("erin", &processor, gap: 300)
        let before = processor.sink.events.count
        let circle: [[Double]] = (0...32).map { (k: Int) -> [Double] in
            let angle = Double(k) * Double.pi / 16
            return [45 + 45 * cos(angle), 45 + 45 * sin(angle), 1000 + 16 * Double(k)]
        }
        Self.draw(&dave, &processor, circle)
        Self.draw(&erin, &processor, Self.line([0, 45], [90, 45]))
        processor.milliseconds = 100
        processor.matchDueGestures()
        #expect(Self.events(processor, from: before).map { $0["name"] as? String } == ["o"])
        #expect(Self.events(processor, from: before).first?["strokes"] as? [Int] == [1])
        Self.draw(&erin, &processor, Self.line([45, 0], [45, 90]))
        processor.milliseconds = 400
        processor.matchDueGestures()
        #expect(Self.events(processor, from: before).map { $0["name"] as? String } == ["o", "plus"])
    }

    @Test("close, and turning grouping off, match the gesture so far; a restart drops it and says so")
    func closeOffRestart() {
        var processor = Self.processor()
        var frank = Self.player("frank", &processor)
        Self.draw(&frank, &processor, Self.line([0, 45], [90, 45]))
        Self.draw(&frank, &processor, Self.line([45, 0], [45, 90]))
        var start = processor.sink.events.count
        frank.send(&processor, ["type": "close"])
        #expect(Self.events(processor, from: start).map { $0["event"] as? String } == ["match", "closed"])
        #expect(Self.events(processor, from: start).first?["name"] as? String == "plus")

        var grace = Self.player("grace", &processor)
        Self.draw(&grace, &processor, Self.line([0, 0], [90, 90]))
        start = processor.sink.events.count
        grace.send(&processor, ["type": "options", "multistroke": 0])
        #expect(Self.events(processor, from: start).map { $0["event"] as? String } == ["nomatch"])
        #expect(Self.events(processor, from: start).first?["strokes"] as? [Int] == [1])
        Self.draw(&grace, &processor, Self.line([0, 0], [90, 90]))
        #expect(Self.events(processor, from: start).last?["strokes"] == nil, "no longer grouped")

        var heidi = Self.player("heidi", &processor)
        Self.draw(&heidi, &processor, Self.line([0, 0], [90, 90]))
        start = processor.sink.events.count
        heidi.sequence = 0
        heidi.send(&processor, ["type": "options", "library": "symbols"])
        let events = Self.events(processor, from: start)
        #expect(events.map { $0["code"] as? String } == ["session_restart"])
        #expect((events.first?["message"] as? String)?.contains("a gesture of 1 ended stroke dropped") == true)
        #expect(processor.pendingGestureCount == 0)
    }

    @Test("an idle session's gesture is matched before it is closed; stopping matches every gesture")
    func idleAndStop() {
        var processor = Self.processor()
        var ivan = Self.player("ivan", &processor, gap: 10_000)
        Self.draw(&ivan, &processor, Self.line([0, 0], [90, 90]))
        Self.draw(&ivan, &processor, Self.line([90, 0], [0, 90]))
        var judy = Self.player("judy", &processor, gap: 10_000)
        Self.draw(&judy, &processor, Self.line([0, 45], [90, 45]))
        judy.stroke += 1
        judy.send(&processor, ["type": "begin", "stroke": judy.stroke, "points": Self.line([45, 0], [45, 90])])
        var start = processor.sink.events.count
        processor.now = UInt32(processor.configuration.idleTimeoutSeconds) + 1
        processor.evictIdle()
        let idle = Self.events(processor, from: start)
        let ivans = idle.filter { $0["session"] as? String == "ivan" }
        let judys = idle.filter { $0["session"] as? String == "judy" }
        #expect(ivans.map { $0["event"] as? String } == ["match", "closed"])
        #expect(ivans.first?["name"] as? String == "x")
        #expect(judys.map { $0["event"] as? String } == ["nomatch", "closed"])
        #expect(judys.first?["strokes"] as? [Int] == [1])

        var kim = Self.player("kim", &processor, gap: 10_000)
        Self.draw(&kim, &processor, Self.line([0, 0], [90, 90]))
        Self.draw(&kim, &processor, Self.line([90, 0], [0, 90]))
        start = processor.sink.events.count
        processor.matchAllGestures()
        #expect(Self.events(processor, from: start).map { $0["name"] as? String } == ["x"])
    }

    @Test("the eighth stroke ends a gesture; an overflowing stroke makes it end without a match")
    func limits() {
        var processor = Self.processor()
        var leo = Self.player("leo", &processor)
        let start = processor.sink.events.count
        for k in 0..<PendingGesture.maximumStrokes {
            Self.draw(&leo, &processor, Self.line([Double(k) * 10, 0], [Double(k) * 10, 90]))
        }
        let events = Self.events(processor, from: start)
        #expect(events.count == 1)
        #expect(events.first?["strokes"] as? [Int] == Array(1...PendingGesture.maximumStrokes))

        var small = WorkerConfiguration()
        small.maxPointsPerStroke = 5
        var limited = SessionProcessor(
            sink: CollectingSink(), configuration: small, registry: Self.registry, metrics: WorkerMetrics())
        var mia = Self.player("mia", &limited)
        Self.draw(&mia, &limited, Self.line([0, 0], [90, 90]))
        Self.draw(&mia, &limited, Self.line([90, 0], [0, 90]), ["last": true])
        let last = Self.events(limited).last
        #expect(last?["event"] as? String == "nomatch")
        #expect(last?["reason"] as? String == "too_many_points")
        #expect(last?["strokes"] as? [Int] == [1, 2])
    }

    @Test("a grouped session learns its gesture of several strokes, and matches it drawn again")
    func learnGesture() {
        var processor = Self.processor(multistroke: 500)
        var nina = Producer("nina")
        let before = processor.sink.events.count
        // A "T": its bar, then its stem; the built-in library has no such gesture.
        Self.draw(&nina, &processor, Self.line([0, 0], [90, 0]))
        Self.draw(&nina, &processor, Self.line([45, 0], [45, 90]), ["learn": "tee"])
        let learned = Self.events(processor, from: before)
        #expect(learned.map { $0["event"] as? String } == ["learned"])
        #expect(learned.first?["strokes"] as? [Int] == [1, 2])
        #expect(learned.first?["points"] as? Int == 22)
        Self.draw(&nina, &processor, Self.line([2, 3], [92, 1]))
        Self.draw(&nina, &processor, Self.line([46, 2], [44, 88]), ["last": true])
        let match = Self.events(processor).last
        #expect(match?["name"] as? String == "tee")
        #expect(match?["learned"] as? Bool == true)
    }

    @Test("the configured wait applies to new sessions; an options message sets a session's own")
    func configuredDefault() {
        var processor = Self.processor(multistroke: 250)
        var olga = Producer("olga")
        Self.draw(&olga, &processor, Self.line([0, 0], [90, 90]))
        #expect(processor.nextGestureDeadline == 250)
        #expect(processor.pendingGestureCount == 1)
        processor.flushMetrics()
        #expect(processor.metrics.gesturesWaiting.load(ordering: .relaxed) == 1)
        processor.milliseconds = 250
        processor.matchDueGestures()
        processor.flushMetrics()
        #expect(processor.metrics.gesturesWaiting.load(ordering: .relaxed) == 0)
        #expect(processor.metrics.gesturesGrouped.load(ordering: .relaxed) == 1)
    }

    @Test("a gesture handed to another thread keeps its strokes: the batch carries them to its event")
    func throughTheBatch() throws {
        let points = (Self.line([90, 0], [0, 90]) + Self.line([0, 0], [90, 90])).map { SIMD2($0[0], $0[1]) }
        var emptied = false
        let event = try BatchedRequest.event(
            points: points, registry: Self.registry, slot: LibraryRegistry.Slot(library: 1, invariant: nil),
            gesture: GestureStrokes(starts: [11], ids: [1, 2])
        ) { batch in
            batch.removeAll()
            emptied = batch.gestures.isEmpty
        }
        #expect(event["name"] as? String == "x")
        #expect(event["strokes"] as? [Int] == [1, 2])
        #expect(emptied)
    }
}
