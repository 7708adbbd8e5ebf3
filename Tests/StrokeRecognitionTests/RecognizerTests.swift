import Foundation
import Testing

@testable import StrokeRecognition

@Suite("Template matcher")
struct RecognizerTests {
    static let library: TemplateLibrary = {
        var library = TemplateLibrary(name: "fixture")
        for log in Fixtures.logs where log.subject == "s02" {
            library.add(GestureTemplate(name: log.gesture, strokePoints: log.points))
        }
        return library
    }()

    @Test("the fixtures hold all 16 gestures")
    func fixtures() {
        #expect(Set(Fixtures.logs.map(\.gesture)).count == 16)
    }

    @Test("a template matches itself at the top with distance 0")
    func matchesItself() throws {
        let recognizer = try Recognizer(library: Self.library)
        for template in Self.library.templates {
            let result = try recognizer.recognize(points: template.points)
            #expect(result.match?.name == template.name)
            #expect(result.candidates.first?.distance ?? 1 < 1e-5)
            #expect(abs((result.match?.score ?? 0) - 1) < 1e-5)
        }
    }

    @Test("recognition is invariant to translation and scale")
    func translationAndScale() throws {
        let recognizer = try Recognizer(library: Self.library)
        for log in Fixtures.logs where log.subject == "s03" {
            let base = try recognizer.recognize(log.points)
            for (offset, scale) in [(SIMD2(1e4, -3e3), 0.01), (SIMD2(-5.0, 7.0), 40.0)] {
                let moved = log.points.map { $0.position * scale + offset }
                let result = try recognizer.recognize(points: moved)
                #expect(result.candidates.first?.name == base.candidates.first?.name)
                #expect(abs((result.candidates.first?.distance ?? 0) - (base.candidates.first?.distance ?? 0)) < 1e-3)
            }
        }
    }

    @Test(
        "a stroke scaled beyond where its segments' squares overflow or vanish matches as the stroke itself",
        arguments: [600, 1000, -600, -1020])
    func extremeScale(exponent: Int) throws {
        let recognizer = try Recognizer(library: Self.library)
        for log in Fixtures.logs where log.subject == "s03" {
            let base = try recognizer.recognize(log.points)
            // A power of two: exact, so the features are the same bits.
            let scaled = log.points.map { point in
                SIMD2(
                    Double(sign: .plus, exponent: exponent, significand: point.position.x),
                    Double(sign: .plus, exponent: exponent, significand: point.position.y))
            }
            let result = try recognizer.recognize(points: scaled)
            // And as a template: a line, a closed shape or one that shows the tilt of the hand, as at its size.
            let template = GestureTemplate(name: log.gesture, strokePoints: log.points)
            let large = GestureTemplate(name: log.gesture, points: scaled)
            #expect(Recognizer.keepsDirection(large) == Recognizer.keepsDirection(template), "\(log.gesture)")
            #expect(Recognizer.showsTilt(large) == Recognizer.showsTilt(template), "\(log.gesture)")
            #expect(result.candidates.map(\.name) == base.candidates.map(\.name))
            #expect(result.candidates.map(\.score) == base.candidates.map(\.score))
            // Not a power of two, and far from 0: the same to rounding.
            let moved = try recognizer.recognize(points: log.points.map { $0.position * 3e200 + SIMD2(1e210, -1e210) })
            #expect(moved.candidates.first?.name == base.candidates.first?.name)
            #expect(abs((moved.candidates.first?.score ?? 0) - (base.candidates.first?.score ?? 1)) < 1e-3)
        }
    }

    @Test("the matcher recognizes another subject's strokes")
    func otherSubject() throws {
        let recognizer = try Recognizer(library: Self.library)
        let tests = Fixtures.logs.filter { $0.subject == "s03" }
        let correct = try tests.filter { try recognizer.recognize($0.points).match?.name == $0.gesture }.count
        #expect(Double(correct) / Double(tests.count) >= 0.9)
    }

    @Test("recognizing along with a second library gives exactly each one's own results")
    func alongWith() throws {
        let recognizer = try Recognizer(library: Self.library)
        var small = TemplateLibrary(name: "small", orientation: .invariant)
        for log in Fixtures.logs.prefix(5) {
            small.add(GestureTemplate(name: "own-" + log.gesture, strokePoints: log.points))
        }
        let other = try Recognizer(library: small)
        for log in Fixtures.logs {
            let points = log.points.map(\.position)
            let both = try points.withUnsafeBufferPointer { try recognizer.recognize(points: $0, alongWith: other) }
            #expect(both.0 == (try recognizer.recognize(points: points)))
            #expect(both.1 == (try other.recognize(points: points)))
        }
        #expect(throws: RecognitionError.self) {
            try [SIMD2<Double>(1, 1)].withUnsafeBufferPointer { try recognizer.recognize(points: $0, alongWith: other) }
        }
    }

    @Test("an independent copy gives exactly the original's results, in both orientation modes")
    func independentCopy() throws {
        var invariant = Self.library
        invariant.orientation = .invariant
        for library in [Self.library, invariant] {
            let recognizer = try Recognizer(library: library)
            let copy = recognizer.independentCopy()
            #expect(copy.templateCount == recognizer.templateCount)
            #expect(copy.library == recognizer.library)
            for log in Fixtures.logs where log.subject == "s03" {
                #expect(try copy.recognize(log.points) == recognizer.recognize(log.points))
            }
        }
    }

    @Test("rotation-invariant libraries match rotated strokes; orientation-sensitive ones tell v from caret")
    func orientation() throws {
        var invariant = TemplateLibrary(name: "inv", orientation: .invariant)
        var sensitive = TemplateLibrary(name: "sens", orientation: .sensitive)
        for name in ["v", "caret", "circle", "star"] {
            let template = GestureTemplate(name: name, strokePoints: Fixtures.log(name).points)
            invariant.add(template)
            sensitive.add(template)
        }
        let v = Fixtures.log("v", subject: "s03").points.map(\.position)
        let upsideDown = StrokeGeometry.rotated(v, by: .pi)
        let caret = Fixtures.log("caret", subject: "s03").points.map(\.position)
        let sensitiveRecognizer = try Recognizer(library: sensitive)
        #expect(try sensitiveRecognizer.recognize(points: v).match?.name == "v")
        #expect(try sensitiveRecognizer.recognize(points: caret).match?.name == "caret")
        #expect(try sensitiveRecognizer.recognize(points: upsideDown).candidates.first?.name != "v")
        let star = Fixtures.log("star", subject: "s03").points.map(\.position)
        let invariantRecognizer = try Recognizer(library: invariant)
        for angle in [0.7, 2.0, -2.5] {
            #expect(
                try invariantRecognizer.recognize(points: StrokeGeometry.rotated(star, by: angle)).match?.name == "star"
            )
        }
    }

    /// The difference of two angles in degrees, folded into 0...180.
    static func degreesApart(_ a: Double, _ b: Double) -> Double {
        let difference = (a - b).truncatingRemainder(dividingBy: 360)
        return abs(abs(difference) > 180 ? difference - 360 * (difference > 0 ? 1 : -1) : difference)
    }

    @Test("a match says how far the stroke is turned from its template: as far as a turned copy was turned")
    func rotation() throws {
        var invariant = TemplateLibrary(name: "inv", orientation: .invariant)
        var sensitive = TemplateLibrary(name: "sens", orientation: .sensitive)
        for name in ["arrow", "check", "star", "triangle"] {
            invariant.add(GestureTemplate(name: name, strokePoints: Fixtures.log(name).points))
            sensitive.add(GestureTemplate(name: name, strokePoints: Fixtures.log(name).points))
        }
        let recognizer = try Recognizer(library: invariant)
        let own = Fixtures.log("arrow").points.map(\.position)
        let drawn = Fixtures.log("arrow", subject: "s03").points.map(\.position)
        #expect(abs(try #require(try recognizer.recognize(points: own).match).rotation) < 0.01, "its own template")
        let base = try #require(try recognizer.recognize(points: drawn).match)
        for degrees in [-170.0, -90, -30, 15, 60, 135, 180] {
            let radians = degrees * .pi / 180
            let turned = try #require(try recognizer.recognize(points: StrokeGeometry.rotated(own, by: radians)).match)
            #expect(turned.name == "arrow" && Self.degreesApart(turned.rotation, degrees) < 0.01, "\(degrees)")
            #expect((-180...180).contains(turned.rotation))
            let other = try #require(
                try recognizer.recognize(points: StrokeGeometry.rotated(drawn, by: radians)).match)
            #expect(other.name == "arrow" && Self.degreesApart(other.rotation - base.rotation, degrees) < 0.1)
        }
        // Orientation-sensitive: the turn within the library's bound (30°), and no further.
        let bounded = try Recognizer(library: sensitive)
        let slight = try #require(try bounded.recognize(points: StrokeGeometry.rotated(own, by: 0.2)).match)
        #expect(slight.name == "arrow" && abs(slight.rotation - 0.2 * 180 / .pi) < 0.01)
        let steep = try bounded.recognize(points: StrokeGeometry.rotated(own, by: 1.2)).candidates
        #expect(steep.allSatisfy { abs($0.rotation) <= 30 + 1e-3 })
    }

    @Test("top-k lists distinct gestures, best first, and a threshold yields no match")
    func candidatesAndThreshold() throws {
        var library = Self.library
        let recognizer = try Recognizer(library: library)
        let result = try recognizer.recognize(Fixtures.log("arrow", subject: "s03").points)
        #expect(result.candidates.count == 3)
        #expect(Set(result.candidates.map(\.name)).count == 3)
        #expect(zip(result.candidates, result.candidates.dropFirst()).allSatisfy { $0.score >= $1.score })
        library.minimumScore = 1
        let strict = try Recognizer(library: library).recognize(Fixtures.log("arrow", subject: "s03").points)
        #expect(strict.match == nil)
        #expect(!strict.candidates.isEmpty)
    }

    @Test("degenerate input gives a clear error, never a crash")
    func degenerate() throws {
        let recognizer = try Recognizer(library: Self.library)
        #expect(throws: RecognitionError.self) { try recognizer.recognize(points: []) }
        #expect(throws: RecognitionError.self) { try recognizer.recognize(points: [SIMD2(1, 1)]) }
        #expect(throws: RecognitionError.self) {
            try recognizer.recognize(points: Array(repeating: SIMD2(5, 5), count: 9))
        }
        #expect(throws: RecognitionError.self) { try recognizer.recognize(points: [SIMD2(0, 0), SIMD2(.nan, 1)]) }
        #expect(throws: RecognitionError.self) { try recognizer.recognize(points: [SIMD2(0, 0), SIMD2(.infinity, 1)]) }
        // Finite coordinates whose extent overflows: a straight line, as from -1 to 1.
        let line = try recognizer.recognize(points: [SIMD2(-1, 0), SIMD2(1, 0)])
        let long = try recognizer.recognize(points: [SIMD2(-1e308, 0), SIMD2(1e308, 0)])
        #expect(long.candidates.map(\.name) == line.candidates.map(\.name))
        #expect(zip(long.candidates, line.candidates).allSatisfy { abs($0.score - $1.score) < 1e-6 })
        do {
            _ = try recognizer.recognize(points: [SIMD2(1, 1)])
        } catch {
            #expect(error.code == .degenerateStroke)
        }
        // Two points, a straight line, huge and tiny coordinates: valid strokes with finite results.
        for stroke: [SIMD2<Double>] in [
            [SIMD2(0, 0), SIMD2(1, 1)], (0..<50).map { SIMD2(Double($0), 0) },
            [SIMD2(1e300, 1e300), SIMD2(1e300 + 1e290, 1e300), SIMD2(1e300, 1e300 + 1e290)],
            [SIMD2(1e-300, 0), SIMD2(2e-300, 0), SIMD2(2e-300, 1e-300)],
        ] {
            let result = try recognizer.recognize(points: stroke)
            #expect(result.candidates.allSatisfy { $0.score.isFinite && $0.score > 0 && $0.score <= 1 })
        }
        let empty = try Recognizer(library: TemplateLibrary(name: "empty"))
        #expect(try empty.recognize(points: [SIMD2(0, 0), SIMD2(1, 1)]).match == nil)
    }

    @Test("the built-in library loads with the 16 gestures and recognizes the fixtures")
    func builtIn() throws {
        let library = try TemplateLibrary.builtIn()
        #expect(library.gestureNames.count == 16)
        let recognizer = try Recognizer(library: library)
        let correct = try Fixtures.logs.filter { try recognizer.recognize($0.points).match?.name == $0.gesture }
        #expect(Double(correct.count) / Double(Fixtures.logs.count) >= 0.97)
    }

    @Test("plain Protractor mode (shortlist 0) still recognizes")
    func plainProtractor() throws {
        var configuration = RecognizerConfiguration.default
        configuration.shortlist = 0
        let recognizer = try Recognizer(library: Self.library, configuration: configuration)
        for template in Self.library.templates {
            #expect(try recognizer.recognize(points: template.points).match?.name == template.name)
        }
        configuration.pointCount = 2
        #expect(throws: RecognitionError.self) { try Recognizer(library: Self.library, configuration: configuration) }
    }

    @Test("the eight-template Protractor stage agrees with the scalar closed form")
    func laneGroupsMatchScalar() throws {
        var configuration = RecognizerConfiguration.default
        configuration.shortlist = 0
        let recognizer = try Recognizer(library: Self.library, configuration: configuration)
        let bound: Float =
            Self.library.orientation == .invariant ? .infinity : Float(Self.library.maxRotationDegrees * .pi / 180)
        let templates = try Self.library.templates.map { template in
            (template.name, try ShapeFeatures(points: template.points, pointCount: 32, tangentWeight: 1).vector)
        }
        var compared = 0
        for log in Fixtures.logs where log.subject != "s02" {
            let candidate = try ShapeFeatures(points: log.points.map(\.position), pointCount: 32, tangentWeight: 1)
            for result in try recognizer.recognize(log.points).candidates {
                let reference = templates.filter { $0.0 == result.name }.map { template in
                    template.1.withUnsafeBufferPointer { t in
                        candidate.vector.withUnsafeBufferPointer { c in
                            Protractor.align(template: t, candidate: c, maxRotation: bound).distance
                        }
                    }
                }.min()!
                #expect(abs(result.distance - Double(reference)) < 1e-5, "\(log.gesture) vs \(result.name)")
                compared += 1
            }
        }
        #expect(compared >= 30)
    }

    @Test(
        "the elastic stage, eight or sixteen templates at a time, agrees with the scalar DTW",
        arguments: [
            // (orientation, points, shortlist) of 48 templates: all (three pairs of groups, or six groups), a pair
            // and a group alone, half a pair, a group alone.
            (TemplateLibrary.Orientation.sensitive, 32, 48), (.invariant, 32, 48), (.sensitive, 31, 48),
            (.invariant, 13, 48), (.sensitive, 32, 24), (.invariant, 32, 24), (.sensitive, 32, 13), (.sensitive, 32, 8),
        ])
    func elasticLanesMatchScalar(orientation: TemplateLibrary.Orientation, pointCount: Int, shortlist: Int) throws {
        var library = Self.library
        library.orientation = orientation
        #expect(library.templates.count == 48)
        // Every gesture listed; with every template re-ranked, each candidate's distance is its gesture's best DTW,
        // and with fewer, one of its templates' DTW.
        var configuration = RecognizerConfiguration(pointCount: pointCount, topK: 16)
        configuration.shortlist = shortlist
        let recognizer = try Recognizer(library: library, configuration: configuration)
        let bound: Float = orientation == .invariant ? .infinity : Float(library.maxRotationDegrees * .pi / 180)
        let templates = try library.templates.map { template in
            (template.name, try ShapeFeatures(points: template.points, pointCount: pointCount, tangentWeight: 1))
        }
        var compared = 0
        for log in Fixtures.logs where log.subject == "s03" {
            let candidate = try ShapeFeatures(
                points: log.points.map(\.position), pointCount: pointCount, tangentWeight: 1)
            for result in recognizer.recognize(candidate).candidates {
                let references = templates.filter { $0.0 == result.name }.map { name, template in
                    Double(Self.scalarDistance(candidate, template, rotate: orientation == .invariant, bound: bound))
                }
                // As drawn, the stroke's features are the scalar matcher's exactly, and so is each distance; rotated,
                // they come from a Protractor angle computed another way.
                let tolerance = orientation == .sensitive ? 0 : 1e-5
                if shortlist == templates.count {
                    #expect(abs(result.distance - references.min()!) <= tolerance, "\(log.gesture) vs \(result.name)")
                } else {
                    #expect(references.contains { abs(result.distance - $0) <= tolerance }, "\(log.gesture)")
                }
                compared += 1
            }
        }
        #expect(compared >= (shortlist == templates.count ? 16 * 16 : 16))
    }

    @Test("the top k candidates are the first k of a longer list: distinct gestures, best first", arguments: [1, 2, 5])
    func topKIsAPrefix(topK: Int) throws {
        let all = try Recognizer(library: Self.library, configuration: RecognizerConfiguration(topK: 16))
        let few = try Recognizer(library: Self.library, configuration: RecognizerConfiguration(topK: topK))
        var compared = 0
        for log in Fixtures.logs where log.subject != "s02" {
            let full = try all.recognize(log.points).candidates
            let head = try few.recognize(log.points).candidates
            #expect(Set(full.map(\.name)).count == full.count, "distinct gestures")
            #expect(zip(full, full.dropFirst()).allSatisfy { $0.distance <= $1.distance }, "best first")
            #expect(head.map(\.name) == full.prefix(topK).map(\.name))
            #expect(head.map(\.distance) == full.prefix(topK).map(\.distance))
            compared += 1
        }
        #expect(compared >= 30)
    }

    /// DTW of one pair with the scalar matcher, the candidate rotated by the Protractor angle when asked.
    static func scalarDistance(_ candidate: ShapeFeatures, _ template: ShapeFeatures, rotate: Bool, bound: Float)
        -> Float
    {
        var elastic = candidate.elastic
        if rotate {
            let angle = template.vector.withUnsafeBufferPointer { t in
                candidate.vector.withUnsafeBufferPointer { c in
                    Protractor.align(template: t, candidate: c, maxRotation: bound).angle
                }
            }
            let (cosine, sine) = (cos(angle), sin(angle))
            for k in stride(from: 0, to: elastic.count, by: 2) {
                let (x, y) = (candidate.elastic[k], candidate.elastic[k + 1])
                elastic[k] = x * cosine - y * sine
                elastic[k + 1] = x * sine + y * cosine
            }
        }
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: 2 * template.pointCount)
        defer { scratch.deallocate() }
        return elastic.withUnsafeBufferPointer { c in
            template.elastic.withUnsafeBufferPointer { t in
                ElasticMatcher.distance(
                    c.baseAddress!, t.baseAddress!, count: template.pointCount, band: 4, abandonAbove: .infinity,
                    scratch: scratch)
            }
        }
    }

    @Test(
        "gathering eight sequences into lanes is a transpose, tail included, into every lane vector or every other",
        arguments: [8, 64, 20, 3], [1, 2])
    func gatherTransposes(count: Int, step: Int) {
        let sources = (0..<8).map { lane in (0..<count).map { Float(lane * 1000 + $0) } }
        let lanes = UnsafeMutablePointer<ElasticMatcher.Lanes>.allocate(capacity: count * step)
        lanes.initialize(repeating: .init(repeating: -1), count: count * step)
        defer { lanes.deallocate() }
        let pointers = sources.map { _ in UnsafeMutablePointer<Float>.allocate(capacity: count) }
        defer { pointers.forEach { $0.deallocate() } }
        for (lane, values) in sources.enumerated() { pointers[lane].initialize(from: values, count: count) }
        pointers.map { UnsafePointer<Float>($0) }.withUnsafeBufferPointer {
            ElasticMatcher.gather($0.baseAddress!, count: count, into: lanes, step: step)
        }
        for k in 0..<count {
            for lane in 0..<8 { #expect(lanes[k * step][lane] == Float(lane * 1000 + k)) }
            // The other half of each pair is left alone.
            if step == 2 { #expect(lanes[k * step + 1] == .init(repeating: -1)) }
        }
    }
}
