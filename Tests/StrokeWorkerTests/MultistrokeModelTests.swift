import Foundation
import StrokeProtocol
import StrokeRecognition
import Testing

@testable import StrokeWorker

@Suite("Gestures of several strokes against a model")
struct MultistrokeModelTests {
    typealias Processor = SessionProcessor<CollectingSink>
    typealias Producer = LearnedTemplatesTests.Producer

    /// What one session should hold, as Protocol/README.md §4.2 says.
    struct Model {
        var gap = 0
        var open: [UInt32] = []
        var pending: [UInt32] = []
        var deadline: UInt64?
    }

    @Test(
        "random strokes, last, cancels, waits, options and closes over 6 sessions: the model's gestures (2,000 steps)")
    func randomOperations() {
        var processor = MultistrokeGestureTests.processor()
        var generator = SeededGenerator(seed: 2512)
        var producers = (0..<6).map { Producer("model-\($0)") }
        var models = [Model](repeating: Model(), count: 6)
        var now: UInt64 = 0
        processor.milliseconds = now
        /// The results each session's events should hold next: their strokes (nil: a stroke matched alone).
        var expected = [[[UInt32]?]](repeating: [], count: 6)
        var results = expected
        var seen = 0

        func draw(_ s: Int, end: Bool, last: Bool) {
            producers[s].stroke += 1
            let id = producers[s].stroke
            let y = Double(id % 7) * 10
            producers[s].send(
                &processor,
                ["type": "begin", "stroke": id, "points": MultistrokeGestureTests.line([0, y], [90, y + 5])])
            models[s].open.append(id)
            if models[s].gap > 0 && !models[s].pending.isEmpty { models[s].deadline = nil }
            if end { finish(s, id, last: last) }
        }

        func finish(_ s: Int, _ id: UInt32, last: Bool) {
            var end: [String: Any] = ["type": "end", "stroke": id]
            if last { end["last"] = true }
            producers[s].send(&processor, end)
            models[s].open.removeAll { $0 == id }
            guard models[s].gap > 0 else {
                expected[s].append(nil)
                return
            }
            models[s].pending.append(id)
            if last || models[s].pending.count == PendingGesture.maximumStrokes {
                expected[s].append(models[s].pending)
                models[s].pending = []
                models[s].deadline = nil
            } else if models[s].open.isEmpty {
                models[s].deadline = now + UInt64(models[s].gap)
            }
        }

        for step in 0..<2_000 {
            let s = Int.random(in: 0..<6, using: &generator)
            switch Int.random(in: 0..<100, using: &generator) {
            case 0..<35: draw(s, end: true, last: false)
            case 35..<45: draw(s, end: true, last: true)
            case 45..<55 where models[s].open.count < 3: draw(s, end: false, last: false)
            case 55..<65 where !models[s].open.isEmpty:
                finish(s, models[s].open.randomElement(using: &generator)!, last: false)
            case 65..<70 where !models[s].open.isEmpty:
                let id = models[s].open.randomElement(using: &generator)!
                producers[s].send(&processor, ["type": "cancel", "stroke": id])
                models[s].open.removeAll { $0 == id }
                if models[s].gap > 0 && !models[s].pending.isEmpty && models[s].open.isEmpty {
                    models[s].deadline = now + UInt64(models[s].gap)
                }
            case 70..<88:
                now += UInt64(Int.random(in: 1...250, using: &generator))
                processor.milliseconds = now
                processor.matchDueGestures()
                for t in 0..<6 where models[t].deadline.map({ $0 <= now }) == true {
                    expected[t].append(models[t].pending)
                    models[t].pending = []
                    models[t].deadline = nil
                }
            case 88..<96:
                let gap = [0, 100, 300][Int.random(in: 0..<3, using: &generator)]
                producers[s].send(&processor, ["type": "options", "multistroke": gap])
                if gap == 0 && !models[s].pending.isEmpty {
                    expected[s].append(models[s].pending)
                    models[s].pending = []
                    models[s].deadline = nil
                }
                models[s].gap = gap
            case 96..<100:
                producers[s].send(&processor, ["type": "close"])
                if !models[s].pending.isEmpty { expected[s].append(models[s].pending) }
                models[s] = Model()
                producers[s] = Producer("model-\(s)")
            default: break
            }
            // Every result so far, session by session, against the model's.
            for event in processor.sink.events[seen...] {
                let fields = try! JSONSerialization.jsonObject(with: Data(event.payload.utf8)) as! [String: Any]
                guard let name = fields["session"] as? String, let t = Int(name.dropFirst("model-".count)) else {
                    continue
                }
                if fields["event"] as? String == "error" { Issue.record("step \(step): \(fields)") }
                if ["match", "nomatch"].contains(fields["event"] as? String) {
                    results[t].append((fields["strokes"] as? [Int])?.map(UInt32.init))
                }
            }
            seen = processor.sink.events.count
            if results != expected {
                Issue.record("step \(step): got \(results), expected \(expected)")
                return
            }
        }
        #expect(expected.map(\.count).reduce(0, +) > 500)
    }
}
