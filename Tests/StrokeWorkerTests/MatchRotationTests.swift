import Foundation
import StrokeProtocol
import StrokeRecognition
import Testing

@testable import StrokeWorker

/// The `rotation` of a `match`: how far the stroke is turned from the template it matched.
@Suite("A match's rotation")
struct MatchRotationTests {
    typealias Producer = LearnedTemplatesTests.Producer

    /// A recorded arrow (subject s02 of the $1 logs shipped for the recognizer's tests).
    static let recordedArrow: [StrokePoint] = TiltFollowingTests.logs.first { $0.gesture == "arrow" }?.points ?? []

    /// That arrow as `[x, y, t]`, turned by `degrees` about the origin.
    static func arrow(turnedBy degrees: Double) -> [[Double]] {
        let (c, s) = (cos(degrees * .pi / 180), sin(degrees * .pi / 180))
        return recordedArrow.map { [$0.x * c - $0.y * s, $0.x * s + $0.y * c, $0.time] }
    }

    /// The difference of two angles in degrees, folded into 0...180.
    static func degreesApart(_ a: Double, _ b: Double) -> Double {
        let difference = (a - b).truncatingRemainder(dividingBy: 360)
        return abs(abs(difference) > 180 ? difference - 360 * (difference > 0 ? 1 : -1) : difference)
    }

    @Test("in a session matching any orientation, an arrow turned by 90° matches with a rotation 90° further")
    func invariantSession() throws {
        #expect(!Self.recordedArrow.isEmpty)
        var processor = SessionProcessorTests.processor()
        var a = Producer("a")
        a.send(&processor, ["type": "options", "orientation": "invariant", "checkmark": false])
        a.draw(&processor, Self.arrow(turnedBy: 0))
        a.draw(&processor, Self.arrow(turnedBy: 90))
        a.draw(&processor, Self.arrow(turnedBy: -135))
        let matches = MinimumSizeTests.events(processor, "a")
        #expect(matches.map { $0["name"] as? String } == ["arrow", "arrow", "arrow"])
        let rotations = try matches.map { try #require($0["rotation"] as? Double) }
        #expect(Self.degreesApart(rotations[1] - rotations[0], 90) <= 0.15, "\(rotations)")
        #expect(Self.degreesApart(rotations[2] - rotations[0], -135) <= 0.15, "\(rotations)")
    }

    @Test("in the built-in library, orientation-sensitive, a match's rotation stays within its 30° bound")
    func sensitiveSession() throws {
        var processor = SessionProcessorTests.processor()
        var a = Producer("a")
        a.draw(&processor, Self.arrow(turnedBy: 0))
        a.draw(&processor, Self.arrow(turnedBy: 20))
        let matches = MinimumSizeTests.events(processor, "a")
        #expect(matches.map { $0["name"] as? String } == ["arrow", "arrow"])
        let rotations = try matches.map { try #require($0["rotation"] as? Double) }
        #expect(rotations.allSatisfy { abs($0) <= 30 }, "\(rotations)")
        #expect(rotations[1] > rotations[0], "turned clockwise on the screen")
    }
}
