import Foundation
import StrokeProtocol
import StrokeRecognition
import Testing

@testable import StrokeWorker

/// Strokes smaller than a session's minimum size (`options` `minimumSize`, `--minimum-stroke-size`): taps.
@Suite("Strokes too small to match")
struct MinimumSizeTests {
    typealias Processor = SessionProcessor<CollectingSink>
    typealias Producer = LearnedTemplatesTests.Producer

    /// A finger that lands and lifts: four points within a pixel or so, which the built-in library, scaled up to
    /// its templates' size, takes for a triangle (0.77).
    static let tap: [[Double]] = [[200.2, 300.1, 0], [199.4, 300.6, 8], [200.6, 300.9, 16], [200.3, 300.0, 24]]

    /// A check 40 units wide and 45 high, at 100 Hz.
    static func check(scale: Double = 1) -> [[Double]] {
        var points = [[Double]]()
        for k in 0...10 {
            let x = Double(k) * scale
            points.append([x, x, Double(k * 10)])
        }
        for k in 1...15 {
            let x: Double = (10 + Double(k) * 2) * scale
            let y: Double = (10 - Double(k) * 2.3) * scale
            points.append([x, y, Double(100 + k * 10)])
        }
        return points
    }

    static func events(_ processor: Processor, _ session: String) -> [[String: Any]] {
        SessionProcessorTests.events(processor).filter { $0.topic == session }.map(\.payload)
    }

    @Test("without a minimum size a tap is matched as a gesture; with one it is a nomatch too_small, with bounds")
    func tapTurnedAway() throws {
        var processor = SessionProcessorTests.processor()
        var plain = Producer("plain")
        plain.send(&processor, ["type": "options", "checkmark": false])
        plain.draw(&processor, Self.tap)
        #expect(Self.events(processor, "plain").last?["event"] as? String == "match", "the defect this guards")

        var careful = Producer("careful")
        careful.send(&processor, ["type": "options", "minimumSize": 20])
        careful.draw(&processor, Self.tap)
        careful.draw(&processor, Self.check())
        let events = Self.events(processor, "careful")
        #expect(events.map { $0["event"] as? String } == ["nomatch", "checkmark", "match"])
        let tooSmall = events[0]
        #expect(tooSmall["reason"] as? String == "too_small" && tooSmall["stroke"] as? Int == 1)
        #expect(tooSmall["bounds"] as? [Double] == [199.4, 300.0, 200.6, 300.9])
        #expect(tooSmall["points"] as? Int == 4 && (tooSmall["candidates"] as? [Any])?.isEmpty == true)
        #expect(tooSmall["library"] as? String == "default")
        #expect(events[2]["name"] as? String == "check")
        #expect(processor.metrics.strokesTooSmall.load(ordering: .relaxed) == 1)
        #expect(processor.metrics.strokesUnmatched.load(ordering: .relaxed) == 1)
    }

    @Test("a check smaller than the minimum size fires no checkmark, and ends too small; a larger one fires")
    func smallCheck() throws {
        var processor = SessionProcessorTests.processor()
        var a = Producer("a")
        a.send(&processor, ["type": "options", "minimumSize": 20])
        a.draw(&processor, Self.check(scale: 0.3))  // 12 × 13.5
        a.draw(&processor, Self.check())  // 40 × 45
        var b = Producer("b")
        b.draw(&processor, Self.check(scale: 0.3))  // no minimum size: the same small check fires
        let events = Self.events(processor, "a")
        #expect(
            events.map { $0["reason"] as? String ?? $0["event"] as? String } == ["too_small", "checkmark", "match"])
        #expect(Self.events(processor, "b").first?["event"] as? String == "checkmark")
        #expect(processor.metrics.checkmarks.load(ordering: .relaxed) == 2)
    }

    /// A check 12 units wide whose flick goes on to 21 × 20.7: it reaches 20 units on both sides at its point 39,
    /// sampled at 390 ms.
    static let growingCheck: [[Double]] = {
        var points = check(scale: 0.3)
        for k in 16...30 {
            points.append([(10 + Double(k) * 2) * 0.3, (10 - Double(k) * 2.3) * 0.3, Double(100 + k * 10)])
        }
        return points
    }()

    @Test("a check that fires while smaller than the minimum size is sent when the stroke reaches it, at that point")
    func growingCheckSentLate() throws {
        var processor = SessionProcessorTests.processor()
        var plain = Producer("plain")
        plain.draw(&processor, Self.growingCheck)
        let fired = try #require(Self.events(processor, "plain").first { $0["event"] as? String == "checkmark" })
        let firedAt = try #require(fired["pointIndex"] as? Int)
        #expect(firedAt < 39, "the detector fires while the check is small")

        // One point a message: nothing until the point that makes the stroke 20 wide, then the check at once.
        var late = Producer("late")
        late.send(&processor, ["type": "options", "minimumSize": 20])
        late.stroke += 1
        late.send(&processor, ["type": "begin", "stroke": late.stroke, "points": [Self.growingCheck[0]]])
        for (offset, point) in Self.growingCheck.enumerated().dropFirst() {
            late.send(&processor, ["type": "points", "stroke": late.stroke, "points": [point]])
            let sent = Self.events(processor, "late").contains { $0["event"] as? String == "checkmark" }
            #expect(sent == (offset >= 39), "point \(offset)")
        }
        late.send(&processor, ["type": "end", "stroke": late.stroke])
        let events = Self.events(processor, "late")
        #expect(events.map { $0["event"] as? String } == ["checkmark", "match"])
        #expect(events[0]["pointIndex"] as? Int == 39 && events[0]["t"] as? Double == 390)
        #expect(events[1]["reason"] == nil)

        // The whole stroke in one message: the same point.
        var batched = Producer("batched")
        batched.send(&processor, ["type": "options", "minimumSize": 20])
        batched.draw(&processor, Self.growingCheck)
        #expect(Self.events(processor, "batched").first?["pointIndex"] as? Int == 39)
        #expect(processor.metrics.checkmarks.load(ordering: .relaxed) == 3)
    }

    @Test("a held check is sent with the next points once the session's options drop its minimum size")
    func heldCheckReleasedByOptions() throws {
        var processor = SessionProcessorTests.processor()
        let small = Self.check(scale: 0.3)
        var plain = Producer("plain")
        plain.draw(&processor, small)
        let fired = try #require(Self.events(processor, "plain").first?["pointIndex"] as? Int)
        #expect(fired < small.count - 2, "the detector fires before the last two points")
        var a = Producer("a")
        a.send(&processor, ["type": "options", "minimumSize": 20])
        a.stroke += 1
        a.send(&processor, ["type": "begin", "stroke": a.stroke, "points": Array(small.dropLast(2))])
        #expect(Self.events(processor, "a").isEmpty, "held: the check is 12 units wide")
        a.send(&processor, ["type": "options", "minimumSize": 0])
        a.send(&processor, ["type": "points", "stroke": a.stroke, "points": Array(small.suffix(2))])
        a.send(&processor, ["type": "end", "stroke": a.stroke])
        let events = Self.events(processor, "a")
        #expect(events.map { $0["event"] as? String } == ["checkmark", "match"])
        #expect(events.first?["pointIndex"] as? Int == small.count - 2)
    }

    @Test("the worker's default applies to every session until its own options say otherwise")
    func workerDefault() throws {
        var processor = SessionProcessorTests.processor { $0.minimumStrokeSize = 50 }
        var a = Producer("a")
        a.draw(&processor, Self.check())  // 40 × 45: smaller than 50 on both sides
        a.draw(&processor, Self.check(scale: 1.5))  // 60 wide
        a.send(&processor, ["type": "options", "minimumSize": 0])
        a.draw(&processor, Self.tap)
        a.send(&processor, ["type": "options", "minimumSize": 50])  // the default again
        a.draw(&processor, Self.tap)
        let results = Self.events(processor, "a").filter { $0["event"] as? String != "checkmark" }
        #expect(
            results.map { $0["reason"] as? String ?? $0["name"] as? String } == [
                "too_small", "check", "triangle", "too_small",
            ])
        #expect(processor.minimumSizeCount == 0, "the default is not kept per session")
    }

    @Test("a gesture of several strokes is measured over all of them")
    func gesture() throws {
        var processor = SessionProcessorTests.processor()
        var a = Producer("a")
        a.send(&processor, ["type": "options", "minimumSize": 20, "multistroke": 500, "checkmark": false])
        // Two dots 30 units apart: each a tap, together a gesture 30 wide.
        let dot = Self.tap.map { [$0[0], $0[1], $0[2]] }
        let other = Self.tap.map { [$0[0] + 30, $0[1], $0[2] + 100] }
        a.stroke += 1
        a.send(&processor, ["type": "begin", "stroke": a.stroke, "points": dot])
        a.send(&processor, ["type": "end", "stroke": a.stroke])
        a.stroke += 1
        a.send(&processor, ["type": "begin", "stroke": a.stroke, "points": other])
        a.send(&processor, ["type": "end", "stroke": a.stroke, "last": true])
        a.stroke += 1
        a.send(&processor, ["type": "begin", "stroke": a.stroke, "points": dot])
        a.send(&processor, ["type": "end", "stroke": a.stroke, "last": true])
        let events = Self.events(processor, "a")
        #expect(events.count == 2)
        #expect(events.first?["reason"] as? String != "too_small" && events.first?["strokes"] as? [Int] == [1, 2])
        #expect(events.last?["reason"] as? String == "too_small" && events.last?["strokes"] as? [Int] == [3])
    }

    @Test("a stroke too small is not learned; a close and a restart drop the session's own minimum size")
    func learningAndLifecycle() throws {
        var processor = SessionProcessorTests.processor()
        var a = Producer("a")
        a.send(&processor, ["type": "options", "minimumSize": 20, "checkmark": false])
        a.draw(&processor, Self.tap, learn: "dot")
        let error = try #require(Self.events(processor, "a").last)
        #expect(error["event"] as? String == "error" && error["code"] as? String == "too_small")
        #expect(LearnedTemplatesTests.learnedCount(processor) == 0)
        #expect(processor.minimumSizeCount == 1)
        a.send(&processor, ["type": "close"])
        #expect(processor.minimumSizeCount == 0)

        var b = Producer("b")
        b.send(&processor, ["type": "options", "minimumSize": 20])
        b.send(&processor, ["type": "options", "checkmark": false])
        #expect(processor.minimumSizeCount == 1)
        b.sequence = 0  // the producer starts over: a new session's options
        b.draw(&processor, Self.tap)
        #expect(processor.minimumSizeCount == 0)
        let restarted = Self.events(processor, "b")
        #expect(restarted.map { $0["code"] as? String ?? $0["event"] as? String } == ["session_restart", "match"])
    }

    @Test("a session's own minimum size outlives a restart of its worker; the default is not written")
    func snapshot() throws {
        var before = SessionProcessorTests.processor()
        var a = Producer("a")
        a.send(&before, ["type": "options", "minimumSize": 12.5])
        var b = Producer("b")
        b.send(&before, ["type": "options", "checkmark": false])
        let saved = before.snapshot().sorted { $0.session < $1.session }
        #expect(saved.map(\.minimumSize) == [12.5, nil])
        let path = NSTemporaryDirectory() + "minimum-size-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try StateFile.write(StateFile.Saved(sessions: saved), to: path)
        let read = try #require(try StateFile.read(path))
        #expect(read.sessions == saved)
        var after = SessionProcessorTests.processor()
        #expect(after.restore(read.sessions).restored == 2)
        #expect(after.snapshot().sorted { $0.session < $1.session } == saved)
        a.draw(&after, Self.tap)
        #expect(Self.events(after, "a").last?["reason"] as? String == "too_small")

        var bad = saved[0]
        bad.minimumSize = -1
        var refused = SessionProcessorTests.processor()
        let report = refused.restore([bad])
        #expect(report.restored == 0 && report.skipped.first?.contains("minimumSize") == true)
    }
}
