import Foundation
import StrokeProtocol
import StrokeRecognition
import Testing

@testable import StrokeWorker

/// The checkmark detector's verdict on a stroke in its match (`--checkmark-gesture`, `--checkmark-margin`): between
/// close candidates the match follows the detector, on the lane and on the recognition helper alike.
@Suite("Session processor: the checkmark detector's verdict in the match")
struct CheckmarkVerdictTests {
    /// A polyline through `corners`, `steps` samples a leg, 10 ms apart.
    static func polyline(_ corners: [SIMD2<Double>], steps: Int) -> [StrokePoint] {
        var points = [StrokePoint(x: corners[0].x, y: corners[0].y, time: 0)]
        for (from, to) in zip(corners, corners.dropFirst()) {
            for k in 1...steps {
                let at = from + (to - from) * (Double(k) / Double(steps))
                points.append(StrokePoint(x: at.x, y: at.y, time: Double(points.count * 10)))
            }
        }
        return points
    }
    /// Down-right, then up-right, at 100 Hz: the detector fires on it while it is drawn.
    static let check = polyline([SIMD2(0, 0), SIMD2(100, 100), SIMD2(250, -80)], steps: 12)
    /// A v with legs of equal length: the detector does not fire on it.
    static let v = polyline([SIMD2(0, 0), SIMD2(50, 150), SIMD2(100, 0)], steps: 10)

    /// `points` with the last `count` points' offsets from the corner scaled by `factor`: a template close to, but
    /// not the same as, the stroke.
    static func altered(_ points: [StrokePoint], last count: Int, by factor: Double) -> [StrokePoint] {
        let corner = points[points.count - count - 1]
        return points.enumerated().map { index, point in
            guard index >= points.count - count else { return point }
            return StrokePoint(
                x: corner.x + (point.x - corner.x) * factor, y: corner.y + (point.y - corner.y) * factor,
                time: point.time)
        }
    }

    /// A library in which `stroke` matches `best` exactly and `runnerUp` a little less.
    static func library(_ stroke: [StrokePoint], best: String, runnerUp: String) -> TemplateLibrary {
        var library = TemplateLibrary(name: "verdict")
        library.add(contentsOf: [
            GestureTemplate(name: best, strokePoints: stroke),
            GestureTemplate(name: runnerUp, strokePoints: altered(stroke, last: 6, by: 0.98)),
        ])
        return library
    }

    /// The match's name and the candidates' names a session gets for `stroke`, matched against `library`, with
    /// the detector on or off; with `grouped`, in a session that groups strokes, as a gesture of that one stroke.
    static func answer(
        _ stroke: [StrokePoint], library: TemplateLibrary, detector: Bool, margin: Double = 0.04, grouped: Bool = false
    ) throws -> (match: String?, candidates: [String]) {
        var configuration = WorkerConfiguration()
        configuration.recognizer.checkmarkMargin = margin
        let registry = try LibraryRegistry(
            [try TemplateLibrary.builtIn(), library], configuration: configuration.recognizer)
        var processor = SessionProcessor(
            sink: CollectingSink(), configuration: configuration, registry: registry, metrics: WorkerMetrics())
        let topic = Array(ShardKey.topic(for: "player").utf8)
        let points = stroke.map { "[\($0.x),\($0.y),\($0.time)]" }.joined(separator: ",")
        for payload in [
            #"{"type":"options","seq":1,"library":"verdict","checkmark":\#(detector),"multistroke":\#(grouped ? 500 : 0)}"#,
            #"{"type":"begin","seq":2,"stroke":1,"points":[\#(points)]}"#,
            #"{"type":"end","seq":3,"stroke":1,"last":\#(grouped)}"#,
        ] {
            topic.withUnsafeBytes { topic in
                Array(payload.utf8).withUnsafeBytes { processor.handle(topic: topic, payload: $0) }
            }
        }
        let events = processor.sink.events.map {
            try! JSONSerialization.jsonObject(with: Data($0.payload.utf8)) as! [String: Any]
        }
        let result = try #require(events.last { ["match", "nomatch"].contains($0["event"] as? String) })
        let candidates = (result["candidates"] as? [[String: Any]] ?? []).map { $0["name"] as! String }
        return (result["name"] as? String, candidates)
    }

    @Test("the premise: each stroke matches the first template best, and the other within the margin")
    func premise() throws {
        for (stroke, best, runnerUp) in [(Self.check, "v", "check"), (Self.v, "check", "v")] {
            let recognizer = try Recognizer(library: Self.library(stroke, best: best, runnerUp: runnerUp))
            let result = try recognizer.recognize(stroke)
            #expect(result.candidates.map(\.name) == [best, runnerUp])
            let scores = result.candidates.map(\.score)
            #expect(scores[0] - scores[1] > 0 && scores[0] - scores[1] <= 0.04, "\(scores)")
        }
        var detector = CheckmarkDetector()
        #expect(detector.add(contentsOf: Self.check) != nil)
        detector = CheckmarkDetector()
        #expect(detector.add(contentsOf: Self.v) == nil)
    }

    @Test("a check the detector fired on is matched as check over a close v; without the detector, as v")
    func firedPromotesCheck() throws {
        let library = Self.library(Self.check, best: "v", runnerUp: "check")
        let fired = try Self.answer(Self.check, library: library, detector: true)
        #expect(fired.match == "check")
        #expect(fired.candidates == ["check", "v"])
        #expect(try Self.answer(Self.check, library: library, detector: false).match == "v")
        #expect(try Self.answer(Self.check, library: library, detector: true, margin: 0).match == "v")
    }

    @Test("a stroke the detector ran on and did not fire on is matched as the close runner-up over check")
    func notFiredDemotesCheck() throws {
        let library = Self.library(Self.v, best: "check", runnerUp: "v")
        let answer = try Self.answer(Self.v, library: library, detector: true)
        #expect(answer.match == "v")
        #expect(answer.candidates == ["v", "check"])
        #expect(try Self.answer(Self.v, library: library, detector: false).match == "check")
    }

    @Test("in a session that groups strokes, a gesture of one stroke is matched with the detector's verdict too")
    func groupedGestureOfOneStroke() throws {
        let promoted = Self.library(Self.check, best: "v", runnerUp: "check")
        let grouped = try Self.answer(Self.check, library: promoted, detector: true, grouped: true)
        #expect(grouped.match == "check" && grouped.candidates == ["check", "v"], "\(grouped)")
        #expect(try Self.answer(Self.check, library: promoted, detector: false, grouped: true).match == "v")
        let demoted = Self.library(Self.v, best: "check", runnerUp: "v")
        #expect(try Self.answer(Self.v, library: demoted, detector: true, grouped: true).match == "v")
        #expect(try Self.answer(Self.v, library: demoted, detector: false, grouped: true).match == "check")
    }

    @Test("in a library either way round, a check matched backward stays the match: the detector knows one way only")
    func backwardCheckStays() throws {
        // The "check" template is the v drawn the other way round: the v matches it exactly, backward, and the v
        // template a little less.
        var library = TemplateLibrary(name: "verdict")
        library.add(contentsOf: [
            GestureTemplate(name: "check", strokePoints: Self.v.reversed()),
            GestureTemplate(name: "v", strokePoints: Self.altered(Self.v, last: 6, by: 0.98)),
        ])
        library.strokeDirection = .any
        let result = try Recognizer(library: library).recognize(Self.v)
        #expect(result.candidates.map(\.name) == ["check", "v"] && result.candidates[0].drawnBackward)
        let scores = result.candidates.map(\.score)
        #expect(scores[0] - scores[1] > 0 && scores[0] - scores[1] <= 0.04, "\(scores)")
        let answer = try Self.answer(Self.v, library: library, detector: true)
        #expect(answer.match == "check" && answer.candidates == ["check", "v"])
        // On the recognition helper too; the event says the match went backward, and which candidates did.
        let registry = try LibraryRegistry([library])
        let event = try BatchedRequest.event(
            points: Self.v.map(\.position), registry: registry, slot: LibraryRegistry.Slot(library: 0, invariant: nil),
            checkmarkFired: false)
        #expect(event["name"] as? String == "check" && event["backward"] as? Bool == true)
        let candidates = try #require(event["candidates"] as? [[String: Any]])
        #expect(candidates.map { $0["backward"] as? Bool } == [true, nil])
    }

    @Test("the verdict travels with a stroke handed to the recognition helper")
    func throughTheEventPipe() throws {
        let library = Self.library(Self.check, best: "v", runnerUp: "check")
        let registry = try LibraryRegistry([library])
        let slot = LibraryRegistry.Slot(library: 0, invariant: nil)
        let points = Self.check.map(\.position)
        let names = try [true, nil].map { (fired: Bool?) in
            let event = try BatchedRequest.event(points: points, registry: registry, slot: slot, checkmarkFired: fired)
            return event["name"] as? String ?? "none"
        }
        #expect(names == ["check", "v"])
    }

    @Test("a --checkmark-gesture no library has is warned of, naming the libraries' gestures; a present one is not")
    func absentGesture() throws {
        var configuration = RecognizerConfiguration.default
        let registry = try LibraryRegistry(
            [try TemplateLibrary.builtIn(), Self.library(Self.check, best: "tick", runnerUp: "vee")],
            configuration: configuration)
        #expect(registry.checkmarkGestureWarning(configuration) == nil, "check, the default, is in the built-in")
        configuration.checkmarkGesture = "tick"
        #expect(registry.checkmarkGestureWarning(configuration) == nil, "tick is in the second library")
        configuration.checkmarkGesture = "chek"
        let warning = try #require(registry.checkmarkGestureWarning(configuration))
        #expect(
            warning.hasPrefix("--checkmark-gesture \"chek\": no library has a gesture of that name (default: arrow"))
        #expect(warning.contains("; \(registry.entries[1].name): tick, vee)"), "\(warning)")
        // Turned off either way: nothing to warn of.
        configuration.checkmarkMargin = 0
        #expect(registry.checkmarkGestureWarning(configuration) == nil)
        configuration.checkmarkMargin = 0.04
        configuration.checkmarkGesture = ""
        #expect(registry.checkmarkGestureWarning(configuration) == nil)
    }
}
