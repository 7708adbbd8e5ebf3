import Foundation
import Testing

@testable import StrokeRecognition

/// Following a player's tilt: the estimate from their matches' rotations (`TiltEstimate`), the detector judging a
/// stroke turned back by it, and which matches tell a tilt (`RecognitionResult.Candidate.showsTilt`).
@Suite("Recognition: a tilted player's checks")
struct TiltEstimateTests {
    // MARK: - The estimate

    @Test("the estimate averages its first three rotations, then gives each new one a quarter of the weight")
    func averaging() {
        var estimate = TiltEstimate()
        estimate.observe(10)
        #expect(estimate.degrees == 10 && estimate.samples == 1)
        estimate.observe(20)
        #expect(estimate.degrees == 15 && estimate.samples == 2)
        estimate.observe(33)
        #expect(estimate.degrees == 21 && estimate.samples == 3)
        estimate.observe(41)
        #expect(estimate.degrees == 26 && estimate.samples == 3)
        // Whole degrees: a rotation within 2° of the estimate leaves it where it is.
        estimate.observe(27.9)
        #expect(estimate.degrees == 26)
        estimate.observe(-14)
        #expect(estimate.degrees == 16)
    }

    @Test("rotations beyond 45° either way, or not finite, are no hand's tilt and are ignored")
    func ignored() {
        var estimate = TiltEstimate()
        for rotation: Double in [46, -90, 180, .nan, .infinity, -.infinity] { estimate.observe(rotation) }
        #expect(estimate == TiltEstimate())
        estimate.observe(-45)
        #expect(estimate.degrees == -45 && estimate.samples == 1)
    }

    @Test("a turn by whole degrees from the table is the computed one, to the bit, for every Int8")
    func wholeDegreeTurns() {
        for degrees in Int8.min...Int8.max {
            let table = CheckmarkDetector.turn(wholeDegrees: degrees)
            let computed = CheckmarkDetector.turn(degrees: Double(degrees))
            #expect(table.x.bitPattern == computed.x.bitPattern && table.y.bitPattern == computed.y.bitPattern)
        }
        #expect(CheckmarkDetector.turn(wholeDegrees: 0) == SIMD2(1, 0))
        #expect(abs(CheckmarkDetector.turn(wholeDegrees: -30).y + 0.5) < 1e-15)
    }

    @Test("the correction waits for two rotations and leaves estimates within the 8° dead zone alone")
    func correction() {
        var estimate = TiltEstimate()
        estimate.observe(-20)
        #expect(estimate.correction == 0)
        estimate.observe(-20)
        #expect(estimate.correction == 20)
        #expect(TiltEstimate(degrees: 8, samples: 3).correction == 0)
        #expect(TiltEstimate(degrees: -8, samples: 3).correction == 0)
        #expect(TiltEstimate(degrees: 9, samples: 2).correction == -9)
        #expect(TiltEstimate(degrees: 30, samples: 1).correction == 0)
    }

    @Test("an estimate made from stored parts is held within ±45° and three samples")
    func storedParts() {
        #expect(TiltEstimate(degrees: 100, samples: 200) == TiltEstimate(degrees: 45, samples: 3))
        #expect(TiltEstimate(degrees: -128, samples: 0).degrees == -45)
    }

    // MARK: - The detector, turned

    /// `points` turned about the origin by `degrees`, clockwise on screen.
    static func turned(_ points: [StrokePoint], by degrees: Double) -> [StrokePoint] {
        let (sine, cosine) = (sin(degrees * .pi / 180), cos(degrees * .pi / 180))
        return points.map { StrokePoint(x: $0.x * cosine - $0.y * sine, y: $0.x * sine + $0.y * cosine, time: $0.time) }
    }

    @Test(
        "a check tilted by 30° clockwise or 40° counter-clockwise fires only when the detector judges it turned back, where the upright one does"
    )
    func turnedBack() throws {
        var upright = CheckmarkDetector()
        let detection = upright.add(contentsOf: Fixtures.check())
        let fired = try #require(detection)
        for tilt in [30.0, -40.0] {
            let tilted = Self.turned(Fixtures.check(), by: tilt)
            var asDrawn = CheckmarkDetector()
            #expect(asDrawn.add(contentsOf: tilted) == nil)
            // Batched, one point at a time, and through the wrapper's buffer: the same point as upright.
            var back = CheckmarkDetector(turnedBy: -tilt)
            #expect(back.add(contentsOf: tilted)?.pointIndex == fired.pointIndex)
            var oneByOne = CheckmarkDetector(turnedBy: -tilt)
            var index: Int?
            for point in tilted where index == nil { index = oneByOne.add(point)?.pointIndex }
            #expect(index == fired.pointIndex)
        }
    }

    @Test("a v tilted either way is judged turned back as the upright v is: it does not fire")
    func vTurnedBack() {
        var upright = CheckmarkDetector()
        #expect(upright.add(contentsOf: Fixtures.v()) == nil)
        for tilt in [30.0, -30.0] {
            var back = CheckmarkDetector(turnedBy: -tilt)
            #expect(back.add(contentsOf: Self.turned(Fixtures.v(), by: tilt)) == nil)
        }
    }

    // MARK: - Which matches tell a tilt

    @Test("matches of open shapes tell a tilt; closed shapes, lines and rotation-invariant libraries do not")
    func showsTilt() throws {
        let builtIn = try Recognizer(library: TemplateLibrary.builtIn())
        #expect(try builtIn.recognize(Fixtures.log("check").points).match?.showsTilt == true)
        #expect(try builtIn.recognize(Fixtures.log("left_curly_brace").points).match?.showsTilt == true)
        for closed in ["circle", "rectangle", "star", "triangle"] {
            let match = try #require(try builtIn.recognize(Fixtures.log(closed).points).match)
            #expect(match.name == closed && !match.showsTilt)
        }
        var invariant = try TemplateLibrary.builtIn()
        invariant.orientation = .invariant
        #expect(try Recognizer(library: invariant).recognize(Fixtures.log("check").points).match?.showsTilt == false)
        let line = TemplateLibrary(
            name: "swipes",
            templates: [
                GestureTemplate(name: "right", strokePoints: Fixtures.polyline([SIMD2(0, 0), SIMD2(100, 0)], step: 2))
            ])
        let swipe = try Recognizer(library: line).recognize(Fixtures.polyline([SIMD2(0, 0), SIMD2(100, 8)], step: 2))
        #expect(swipe.match?.name == "right" && swipe.match?.showsTilt == false)
    }

    // MARK: - A session followed

    @Test("a tilted subject's checks fire as upright ones do once the session follows the tilt")
    func followed() throws {
        #expect(!Fixtures.logs.isEmpty)
        let subjects = ["s02", "s03"].map { subject in
            let others = Fixtures.logs.filter { $0.subject != subject }
            return (
                samples: Fixtures.logs.filter { $0.subject == subject },
                library: TemplateLibrary(
                    name: "without-\(subject)",
                    elasticDeadZoneDegrees: 10,
                    templates: others.map { GestureTemplate(name: $0.gesture, strokePoints: $0.points) })
            )
        }
        let report = try Evaluator.tiltTracking(subjects: subjects, tilts: [-30, 0, 30])
        #expect(report.rows.count == 9)
        var rows = [String: TiltReport.Row]()
        for row in report.rows { rows["\(row.tilt)/\(row.tracking)/\(row.matching)"] = row }
        let upright = try #require(rows["0.0/false/false"])
        for tilt in ["-30.0", "30.0"] {
            let asDrawn = try #require(rows["\(tilt)/false/false"])
            let followed = try #require(rows["\(tilt)/true/false"])
            let both = try #require(rows["\(tilt)/true/true"])
            #expect(asDrawn.checksFired < upright.checksFired)
            #expect(followed.checksFired == upright.checksFired)
            #expect(followed.vsFired <= asDrawn.vsFired)
            #expect(followed.medianEstimateError <= 8)
            // The library following the tilt too: the detector's checks as upright, and no stroke fewer matched.
            #expect(both.checksFired == upright.checksFired)
            #expect(both.accuracy >= asDrawn.accuracy && both.medianEstimateError <= 8)
        }
        #expect(rows["0.0/true/false"]?.checksFired == upright.checksFired)
        #expect(
            rows["0.0/true/true"]
                == rows["0.0/true/false"].map { row in
                    var same = row
                    same.matching = true
                    return same
                })
    }
}
