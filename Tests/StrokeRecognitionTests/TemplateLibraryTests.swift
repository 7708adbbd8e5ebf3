import Foundation
import Testing

@testable import StrokeRecognition

@Suite("Template libraries")
struct TemplateLibraryTests {
    private func temporaryPath() -> String {
        NSTemporaryDirectory() + "stroke-library-\(UUID().uuidString).json"
    }

    @Test("save and load round trip")
    func roundTrip() throws {
        var library = TemplateLibrary(
            name: "spells", orientation: .invariant, maxRotationDegrees: 45, minimumScore: 0.7)
        library.add(GestureTemplate(name: "zap", points: [SIMD2(0, 0), SIMD2(1.5, 2), SIMD2(3, 0)]))
        library.add(GestureTemplate(name: "zap", points: [SIMD2(0, 0), SIMD2(2, 2), SIMD2(3, 0)]))
        library.add(GestureTemplate(name: "heal", points: [SIMD2(0, 0), SIMD2(0, 5)]))
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try library.save(to: path)
        let loaded = try TemplateLibrary(contentsOf: path)
        #expect(loaded == library)
        #expect(loaded.gestureCounts.map(\.name) == ["heal", "zap"])
        // The elastic dead zone: written when set, and a file without it reads as none.
        #expect(loaded.elasticDeadZoneDegrees == nil)
        library.elasticDeadZoneDegrees = 12.5
        try library.save(to: path)
        #expect(try TemplateLibrary(contentsOf: path).elasticDeadZoneDegrees == 12.5)
        #expect(try TemplateLibrary.builtIn().elasticDeadZoneDegrees == TemplateLibrary.shapeElasticDeadZoneDegrees)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())
            .filter { $0.contains(URL(fileURLWithPath: path).lastPathComponent + ".tmp") }
        #expect(leftovers.isEmpty)
    }

    @Test("add, remove one, remove all")
    func editing() throws {
        var library = TemplateLibrary(name: "edit")
        library.add(
            contentsOf: (0..<3).map { GestureTemplate(name: "a", points: [SIMD2(0, 0), SIMD2(Double($0 + 1), 0)]) })
        library.add(GestureTemplate(name: "b", points: [SIMD2(0, 0), SIMD2(0, 1)]))
        try library.remove(named: "a", at: 1)
        #expect(library.templates.filter { $0.name == "a" }.map { $0.points[1].x } == [1, 3])
        #expect(throws: RecognitionError.self) { try library.remove(named: "a", at: 5) }
        #expect(library.removeAll(named: "a") == 2)
        #expect(library.gestureNames == ["b"])
    }

    @Test(
        "malformed files give clear errors",
        arguments: [
            ("not json", "malformed_library"),
            (
                #"{"format":"other","version":1,"name":"x","orientation":"sensitive","templates":[]}"#,
                "malformed_library"
            ),
            (
                #"{"format":"stroke-worker/template-library","version":9,"name":"x","orientation":"sensitive","templates":[]}"#,
                "unsupported_version"
            ),
            (
                #"{"format":"stroke-worker/template-library","version":1,"name":"x","orientation":"sideways","templates":[]}"#,
                "malformed_library"
            ),
            (
                #"{"format":"stroke-worker/template-library","version":1,"name":"x","orientation":"sensitive"}"#,
                "malformed_library"
            ),
            (
                #"{"format":"stroke-worker/template-library","version":1,"name":"x","orientation":"sensitive","templates":[{"name":"a","points":[[1,2,3],[4,5]]}]}"#,
                "malformed_library"
            ),
            (
                #"{"format":"stroke-worker/template-library","version":1,"name":"x","orientation":"sensitive","templates":[{"name":"a","points":[[1,2]]}]}"#,
                "malformed_library"
            ),
            (
                #"{"format":"stroke-worker/template-library","version":1,"name":"x","orientation":"sensitive","minimumScore":3,"templates":[]}"#,
                "malformed_library"
            ),
            (
                #"{"format":"stroke-worker/template-library","version":1,"name":"x","orientation":"sensitive","elasticDeadZoneDegrees":-1,"templates":[]}"#,
                "malformed_library"
            ),
            (
                #"{"format":"stroke-worker/template-library","version":1,"name":"x","orientation":"sensitive","elasticDeadZoneDegrees":"wide","templates":[]}"#,
                "malformed_library"
            ),
            (
                #"{"format":"stroke-worker/template-library","version":1,"name":"x","orientation":"sensitive","templates":[{"name":"a","points":[[1,1],[1,1]]}]}"#,
                "malformed_library"
            ),
        ])
    func malformed(json: String, code: String) {
        do {
            _ = try TemplateLibrary(json: Data(json.utf8), source: "test.json")
            Issue.record("expected an error")
        } catch {
            #expect(error.code.rawValue == code)
            #expect(error.message.hasPrefix("test.json"))
        }
    }

    @Test("a missing file is an I/O error")
    func missing() {
        #expect(throws: RecognitionError.self) { try TemplateLibrary(contentsOf: "/nonexistent/library.json") }
    }
}
