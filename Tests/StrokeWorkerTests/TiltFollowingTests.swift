import Foundation
import StrokeProtocol
import StrokeRecognition
import Testing

@testable import StrokeWorker

/// Following a session's tilt (`--checkmark-follow-tilt`): the rotations of its matches of open shapes come back to
/// the lane (`TiltFeedback`), and its next strokes' checkmark detector judges them turned back upright.
@Suite("Session processor: following a tilted player's hand")
struct TiltFollowingTests {
    typealias Producer = LearnedTemplatesTests.Producer

    /// Recorded strokes (subject s02 of the $1 logs shipped for the recognizer's tests).
    static let logs: [DollarLog] = {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../StrokeRecognitionTests/Fixtures/dollar1-mini").standardized.path
        return ((try? DollarLog.loadDataset(directory)) ?? []).filter { $0.subject == "s02" }
    }()

    /// The recorded stroke of `gesture` (the `index`-th), as `[x, y, t]`, turned by `degrees` about the origin.
    static func stroke(_ gesture: String, index: Int = 0, turnedBy degrees: Double) -> [[Double]] {
        let points = logs.filter { $0.gesture == gesture }[index].points
        let (c, s) = (cos(degrees * .pi / 180), sin(degrees * .pi / 180))
        return points.map { [$0.x * c - $0.y * s, $0.x * s + $0.y * c, $0.time] }
    }

    /// The events of `session` of the kinds `kinds`, by name.
    static func kinds(_ processor: SessionProcessor<CollectingSink>, _ session: String) -> [String] {
        MinimumSizeTests.events(processor, session).compactMap { $0["event"] as? String }
            .filter { ["checkmark", "match", "nomatch"].contains($0) }
    }

    /// Two arrows and a left curly brace tilted by `tilt`, then a check tilted alike: the events of the check.
    static func tiltedCheck(_ processor: inout SessionProcessor<CollectingSink>, _ session: String, tilt: Double)
        -> [String]
    {
        tiltedCheck(&processor, Producer(session), tilt: tilt)
    }

    /// The same, sent by `producer` (numbered on from where it is).
    static func tiltedCheck(_ processor: inout SessionProcessor<CollectingSink>, _ producer: Producer, tilt: Double)
        -> [String]
    {
        var producer = producer
        let session = producer.session
        for (gesture, index) in [("arrow", 0), ("left_curly_brace", 0), ("arrow", 1)] {
            producer.draw(&processor, stroke(gesture, index: index, turnedBy: tilt))
        }
        let before = kinds(processor, session).count
        producer.draw(&processor, stroke("check", index: 1, turnedBy: tilt))
        return Array(kinds(processor, session).dropFirst(before))
    }

    @Test("the premise: the recorded check tilted by 35° clockwise or 30° counter-clockwise does not fire the detector")
    func premise() {
        #expect(!Self.logs.isEmpty)
        for tilt in [35.0, -30.0] {
            var processor = SessionProcessorTests.processor()
            var fresh = Producer("fresh")
            fresh.draw(&processor, Self.stroke("check", index: 1, turnedBy: tilt))
            #expect(Self.kinds(processor, "fresh") == ["match"], "tilt \(tilt)")
        }
    }

    @Test("after three matches of a tilted hand, the session's check fires the detector, as an upright one does")
    func followed() throws {
        for tilt in [35.0, -30.0] {
            var processor = SessionProcessorTests.processor()
            #expect(Self.tiltedCheck(&processor, "tilted", tilt: tilt) == ["checkmark", "match"], "tilt \(tilt)")
            // From two matches on: the third shape and the check were judged turned.
            #expect(processor.metrics.strokesTurned.load(ordering: .relaxed) == 2)
            processor.applyTiltFeedback()
            let estimate = try #require(processor.tilt(ofSession: "tilted"))
            #expect(estimate.samples == TiltEstimate.warmUp && abs(Double(estimate.degrees) - tilt) <= 6)
            let matches = MinimumSizeTests.events(processor, "tilted").filter { $0["event"] as? String == "match" }
            #expect(matches.last?["name"] as? String == "check")
        }
        var upright = SessionProcessorTests.processor()
        #expect(Self.tiltedCheck(&upright, "upright", tilt: 0) == ["checkmark", "match"])
        #expect(try #require(upright.tilt(ofSession: "upright")).correction == 0)
        #expect(upright.metrics.strokesTurned.load(ordering: .relaxed) == 0)
    }

    @Test("with --checkmark-follow-tilt off, or the detector off where the match does not follow, no estimate is kept")
    func notFollowed() throws {
        var off = SessionProcessorTests.processor { $0.checkmarkFollowsTilt = false }
        #expect(Self.tiltedCheck(&off, "a", tilt: 35) == ["match"])
        off.applyTiltFeedback()
        #expect(off.tilt(ofSession: "a") == TiltEstimate())
        // With the detector off, the estimate serves the match alone (`--match-follow-tilt`, on by default).
        for matchFollows in [false, true] {
            var silent = SessionProcessorTests.processor { $0.matchFollowsTilt = matchFollows }
            var b = Producer("b")
            b.send(&silent, ["type": "options", "checkmark": false])
            for index in 0..<2 { b.draw(&silent, Self.stroke("arrow", index: index, turnedBy: 30)) }
            silent.applyTiltFeedback()
            let estimate = try #require(silent.tilt(ofSession: "b"))
            #expect(matchFollows ? estimate.samples == 2 : estimate == TiltEstimate())
        }
    }

    @Test("a session's estimate is kept in its snapshot and restored with it; a session without one has none")
    func snapshotAndRestore() throws {
        var processor = SessionProcessorTests.processor()
        _ = Self.tiltedCheck(&processor, "tilted", tilt: -30)
        var quiet = Producer("quiet")
        quiet.send(&processor, ["type": "options", "checkmark": true])
        processor.applyTiltFeedback()
        let estimate = try #require(processor.tilt(ofSession: "tilted"))
        let snapshots = processor.snapshot()
        #expect(snapshots.first { $0.session == "tilted" }?.tilt == estimate && estimate.samples == 3)
        #expect(snapshots.first { $0.session == "quiet" }.map { $0.tilt == nil } == true)
        var restored = SessionProcessorTests.processor()
        #expect(restored.restore(snapshots).restored == 2)
        #expect(restored.tilt(ofSession: "tilted") == estimate)
        #expect(restored.tilt(ofSession: "quiet") == TiltEstimate())
        // The restored session's next check is judged turned back at once.
        var tilted = Producer("tilted")
        tilted.sequence = try #require(snapshots.first { $0.session == "tilted" }?.seq)
        tilted.stroke = 10
        tilted.draw(&restored, Self.stroke("check", index: 1, turnedBy: -30))
        #expect(Self.kinds(restored, "tilted") == ["checkmark", "match"])
    }

    @Test("a producer that starts over starts its session's estimate over; closed shapes tell no tilt")
    func restartAndClosedShapes() throws {
        var processor = SessionProcessorTests.processor()
        var a = Producer("a")
        for index in 0..<2 { a.draw(&processor, Self.stroke("arrow", index: index, turnedBy: 30)) }
        processor.applyTiltFeedback()
        #expect(processor.tilt(ofSession: "a")?.samples == 2)
        var again = Producer("a")
        again.send(&processor, ["type": "options", "checkmark": true])
        #expect(processor.tilt(ofSession: "a") == TiltEstimate())
        var b = Producer("b")
        for gesture in ["circle", "rectangle", "star", "triangle"] {
            b.draw(&processor, Self.stroke(gesture, turnedBy: 20))
        }
        #expect(Self.kinds(processor, "b") == ["match", "match", "match", "match"])
        processor.applyTiltFeedback()
        #expect(processor.tilt(ofSession: "b") == TiltEstimate())
    }

    @Test("a match recognized off the lane, from a batch, hands its rotation back; one of a session gone is dropped")
    func fromBatch() throws {
        let feedback = TiltFeedback()
        let registry = SessionProcessorTests.registry
        var batch = EventPipe.Batch()
        let points = Self.logs.first { $0.gesture == "arrow" }!.points.map(\.position)
        for (session, follows) in [("followed", true), ("not", false)] {
            Array(session.utf8).withUnsafeBytes { id in
                points.withUnsafeBufferPointer { points in
                    batch.append(
                        RecognitionRequest(
                            context: .init(session: id, eventSequence: 1, sequence: 1, stroke: 1),
                            recognizer: registry.entries[0].recognizer(invariant: nil), library: "builtin",
                            slot: .init(library: 0, invariant: nil), points: points, checkmarkFired: false,
                            tiltFeedback: follows ? Unmanaged.passUnretained(feedback) : nil))
                }
            }
        }
        var writer = JSONWriter()
        var tiltSamples: [TiltFeedback.Sample] = []
        var matched = 0
        batch.forEachEvent(
            encodingRequestsWith: &writer, registry: registry, metrics: WorkerMetrics(), tiltSamples: &tiltSamples
        ) { _, payload in
            if String(decoding: payload, as: UTF8.self).contains(#""event":"match""#) { matched += 1 }
        }
        #expect(matched == 2)
        #expect(feedback.pending)
        var samples = [TiltFeedback.Sample]()
        feedback.take(into: &samples)
        #expect(samples.count == 1 && !feedback.pending)
        #expect(samples.first?.session.withUnsafeBytes { Array($0) } == Array("followed".utf8))
        // Handed to a processor that holds no such session: dropped, and no session made for it.
        var processor = SessionProcessorTests.processor()
        processor.core.tiltFeedback.post(.init(session: UnsafeRawBufferPointer(start: nil, count: 0), degrees: 12))
        "gone".utf8.withContiguousStorageIfAvailable {
            processor.core.tiltFeedback.post(.init(session: UnsafeRawBufferPointer($0), degrees: 20))
        }
        processor.applyTiltFeedback()
        #expect(processor.sessionCount == 0 && !processor.core.tiltFeedback.pending)
    }
}
