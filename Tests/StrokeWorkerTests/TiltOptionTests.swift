import Foundation
import StrokeProtocol
import StrokeRecognition
import Testing

@testable import StrokeWorker

/// A session's own say on following its tilt (`options` with `followTilt`), against the worker's default
/// (`--checkmark-follow-tilt`).
@Suite("Session processor: a session's followTilt option")
struct TiltOptionTests {
    typealias Producer = LearnedTemplatesTests.Producer
    typealias Strokes = TiltFollowingTests

    @Test("followTilt false forgets the estimate and takes no samples: a tilted check is judged as drawn")
    func turnedOff() throws {
        var processor = SessionProcessorTests.processor()
        var a = Producer("a")
        for (gesture, index) in [("arrow", 0), ("left_curly_brace", 0), ("arrow", 1)] {
            a.draw(&processor, Strokes.stroke(gesture, index: index, turnedBy: 35))
        }
        processor.applyTiltFeedback()
        #expect(processor.tilt(ofSession: "a")?.samples == TiltEstimate.warmUp)
        a.send(&processor, ["type": "options", "followTilt": false])
        #expect(processor.tilt(ofSession: "a") == TiltEstimate())
        // More tilted matches take no samples, and the check that fires when followed does not.
        let turned = processor.metrics.strokesTurned.load(ordering: .relaxed)
        let events = Strokes.tiltedCheck(&processor, a, tilt: 35)
        #expect(events == ["match"])
        #expect(processor.metrics.strokesTurned.load(ordering: .relaxed) == turned)
        processor.applyTiltFeedback()
        #expect(processor.tilt(ofSession: "a") == TiltEstimate())
        // A sample handed back after the option (a match recognized off the lane meanwhile) is dropped too.
        "a".utf8.withContiguousStorageIfAvailable {
            processor.core.tiltFeedback.post(.init(session: UnsafeRawBufferPointer($0), degrees: 20))
        }
        processor.applyTiltFeedback()
        #expect(processor.tilt(ofSession: "a") == TiltEstimate())
        // Another session of the same worker still follows its own.
        #expect(Strokes.tiltedCheck(&processor, "b", tilt: 35) == ["checkmark", "match"])
    }

    @Test("followTilt true again starts the estimate over, and the session follows from its next matches")
    func turnedOnAgain() throws {
        var processor = SessionProcessorTests.processor()
        var a = Producer("a")
        a.send(&processor, ["type": "options", "followTilt": false])
        a.send(&processor, ["type": "options", "followTilt": true])
        #expect(processor.tilt(ofSession: "a") == TiltEstimate())
        a.draw(&processor, Strokes.stroke("arrow", turnedBy: -30))
        processor.applyTiltFeedback()
        #expect(processor.tilt(ofSession: "a")?.samples == 1)
        // Saying true once more changes nothing: the estimate is kept.
        a.send(&processor, ["type": "options", "followTilt": true])
        #expect(processor.tilt(ofSession: "a")?.samples == 1)
    }

    @Test("in a worker that does not follow tilts, a session that asks to follows its own, until it starts over")
    func turnedOnInAWorkerThatDoesNot() throws {
        var processor = SessionProcessorTests.processor { $0.checkmarkFollowsTilt = false }
        var a = Producer("a")
        a.send(&processor, ["type": "options", "followTilt": true])
        #expect(Strokes.tiltedCheck(&processor, "a", tilt: -30) == ["checkmark", "match"])
        #expect(Strokes.tiltedCheck(&processor, "plain", tilt: -30) == ["match"])
        processor.applyTiltFeedback()
        #expect(processor.tilt(ofSession: "a")?.samples == TiltEstimate.warmUp)
        // The producer numbers from 1 again: the option goes back to the worker's default, the estimate with it.
        var again = Producer("a")
        again.stroke = 100
        #expect(Strokes.tiltedCheck(&processor, again, tilt: -30) == ["match"])
        processor.applyTiltFeedback()
        #expect(processor.tilt(ofSession: "a") == TiltEstimate())
    }

    @Test("a session's own followTilt is kept in its snapshot where it differs from the worker's default")
    func snapshotAndRestore() throws {
        var processor = SessionProcessorTests.processor()
        var off = Producer("off")
        off.send(&processor, ["type": "options", "followTilt": false])
        var plain = Producer("plain")
        plain.send(&processor, ["type": "options", "followTilt": true])
        let snapshots = processor.snapshot()
        #expect(snapshots.first { $0.session == "off" }?.followTilt == false)
        #expect(snapshots.first { $0.session == "plain" }.map { $0.followTilt == nil } == true)
        // Only the session whose option differs is in a checkpoint.
        #expect(processor.checkpoint().map(\.session) == ["off"])

        var restored = SessionProcessorTests.processor()
        #expect(restored.restore(snapshots).restored == 2)
        var resumed = Producer("off")
        resumed.sequence = try #require(snapshots.first { $0.session == "off" }?.seq)
        #expect(Strokes.tiltedCheck(&restored, resumed, tilt: 35) == ["match"])
        // A snapshot without the field takes the default of the worker that restores it; a tilt in a snapshot of
        // a session that does not follow is not taken.
        var quiet = SessionProcessorTests.processor { $0.checkmarkFollowsTilt = false }
        let kept = SessionSnapshot(
            session: "kept", seq: 4, eventSeq: 0, library: "default", tilt: TiltEstimate(degrees: 30, samples: 3))
        #expect(quiet.restore([kept]).restored == 1)
        #expect(quiet.tilt(ofSession: "kept") == TiltEstimate())
        #expect(quiet.snapshot().first?.followTilt == nil)
    }
}
