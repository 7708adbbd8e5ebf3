import Foundation
import Testing

@testable import StrokeRecognition

/// Library files mutated at random are read or refused with an error, never a crash; one that is read compiles or is
/// refused, and a recognizer it compiles into answers a stroke.
@Suite("Template library files against bad input")
struct LibraryFileFuzzTests {
    /// A version 4 library: single strokes, one of several strokes, gestures with thresholds of their own, scores
    /// that stand for two templates (each path either way round counted once).
    static let sample = #"""
        {"format":"stroke-worker/template-library","version":4,"neighbors":2,"name":"spells","orientation":"sensitive",
        "maxRotationDegrees":30,"elasticDeadZoneDegrees":10,"minimumScore":0.6,"strokeDirection":"any",
        "gestures":{"zap":{"minimumScore":0.8},"plus":{"minimumScore":0.55}},
        "templates":[{"name":"zap","points":[[0,0],[15,20],[30,0],[45,20]]},
        {"name":"ring","points":[[10,0],[7,7],[0,10],[-7,7],[-10,0],[-7,-7],[0,-10],[7,-7],[10,0]]},
        {"name":"zap","points":[[0,0],[12,22],[29,2],[44,18]]},
        {"name":"plus","strokes":[[[0,5],[10,5]],[[5,0],[5,10]]]}]}
        """#

    /// Numbers that a mutation puts in place of one of the file's.
    static let numbers = ["1e308", "-1e308", "1e-320", "0", "-0", "4", "1e999", "-3", "0.5", "181", "2"]

    @Test("mutated files: bytes changed, cut short, numbers replaced by extreme ones")
    func mutated() throws {
        var generator = SeededGenerator(seed: 47)
        let base = Array(Self.sample.utf8)
        let stroke: [SIMD2<Double>] = [SIMD2(0, 0), SIMD2(14, 21), SIMD2(31, 1), SIMD2(44, 19)]
        var read = 0
        var compiled = 0
        for round in 0..<3_000 {
            var bytes = base
            switch round % 3 {
            case 0:
                for _ in 0..<Int.random(in: 1...3, using: &generator) {
                    bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(
                        in: 32...126, using: &generator)
                }
            case 1:
                bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &generator)))
            default:
                // Replace one number of the file by another.
                let text = String(decoding: bytes, as: UTF8.self)
                let pattern = try Regex(#"-?[0-9]+(\.[0-9]+)?"#)
                let matches = text.matches(of: pattern)
                let target = matches[Int.random(in: 0..<matches.count, using: &generator)]
                var changed = text
                changed.replaceSubrange(target.range, with: Self.numbers.randomElement(using: &generator)!)
                bytes = Array(changed.utf8)
            }
            guard let library = try? TemplateLibrary(json: Data(bytes), source: "fuzz") else { continue }
            read += 1
            guard let recognizer = try? Recognizer(library: library) else { continue }
            compiled += 1
            if let result = try? recognizer.recognize(points: stroke) {
                #expect(result.candidates.allSatisfy { !$0.score.isNaN }, "round \(round)")
            }
        }
        // Most mutations of a number leave a library that is read and compiled.
        #expect(read > 500 && compiled > 500, "read \(read), compiled \(compiled)")
    }
}
