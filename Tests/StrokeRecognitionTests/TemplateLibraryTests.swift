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
        // addNew passes over what the library holds and what it appended before, of the same name and points.
        let b = GestureTemplate(name: "b", points: [SIMD2(0, 0), SIMD2(0, 1)])
        let c = GestureTemplate(name: "c", points: [SIMD2(0, 0), SIMD2(0, 1)])
        #expect(library.addNew(contentsOf: [b, c, c]) == 2)
        #expect(library.templates == [b, c])
        #expect(library.addNew(contentsOf: library.templates) == 2)
        #expect(library.templates.count == 2)
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

    @Test("a template drawn in tiny coordinates loads, and matches its shape drawn at any size")
    func tinyTemplate() throws {
        // Its segments' squared lengths vanish (below about 1e-154), but its points differ: it has an extent.
        let json = #"""
            {"format":"stroke-worker/template-library","version":1,"name":"x","orientation":"sensitive",
             "templates":[{"name":"corner","points":[[0,0],[1e-300,0],[1e-300,1e-300]]}]}
            """#
        let library = try TemplateLibrary(json: Data(json.utf8), source: "test.json")
        let result = try Recognizer(library: library).recognize(points: [SIMD2(0, 0), SIMD2(5, 0), SIMD2(5, 5)])
        #expect(result.match?.name == "corner")
        #expect(abs((result.match?.score ?? 0) - 1) < 1e-5)
    }

    @Test("a gesture no session could choose by its name is refused: over 64 bytes, or *")
    func unchoosableNames() throws {
        // Until session 86 they loaded and matched, but `options` with `gestures` or `gestureScores` could not name
        // them (1 to 64 bytes, not "*", as `learn` requires).
        let head = #"{"format":"stroke-worker/template-library","version":3,"orientation":"sensitive","name":"spells","#
        let long = String(repeating: "é", count: 33)  // 66 bytes
        let fits = String(repeating: "é", count: 32)  // 64 bytes
        for (json, problem) in [
            (
                head + #""templates":[{"name":"\#(long)","points":[[0,0],[9,9]]}]}"#,
                "templates[0].name \"\(long.prefix(24))\"… is 66 bytes of UTF-8; a gesture's name is at most 64"
            ),
            (
                head
                    + #""gestures":{"\#(long)":{"minimumScore":0.5}},"templates":[{"name":"a","points":[[0,0],[9,9]]}]}"#,
                "gestures has a name \"\(long.prefix(24))\"… is 66 bytes"
            ),
            (
                head + #""templates":[{"name":"a","points":[[0,0],[9,9]]},{"name":"*","points":[[0,0],[9,9]]}]}"#,
                #"templates[1].name "*", which stands for every gesture where sessions choose gestures"#
            ),
        ] {
            do {
                _ = try TemplateLibrary(json: Data(json.utf8), source: "test.json")
                Issue.record("\(json) was taken")
            } catch {
                #expect(error.code == .malformedLibrary && error.message.hasPrefix("test.json: " + problem), "\(error)")
            }
        }
        let library = try TemplateLibrary(
            json: Data((head + #""templates":[{"name":"\#(fits)","points":[[0,0],[9,9]]}]}"#).utf8), source: "t")
        #expect(library.templates.first?.name == fits)
    }

    @Test("a name with a control character is refused, the library's, a gesture's or a template's, and shown escaped")
    func controlCharacters() {
        // Until session 78 they loaded: a library named "spells\nx" split the worker's log line in two.
        let head = #"{"format":"stroke-worker/template-library","version":3,"orientation":"sensitive","#
        let zap = #"{"name":"zap","points":[[0,0],[9,9]]}"#
        for (json, problem) in [
            (head + #""name":"spells\nx","templates":[\#(zap)]}"#, #"name "spells\nx" has a control character"#),
            (
                head + #""name":"spells","gestures":{"zap\u0007":{"minimumScore":0.5}},"templates":[\#(zap)]}"#,
                #"gestures has a name with a control character, "zap\u0007""#
            ),
            (
                head + #""name":"spells","templates":[{"name":"z\u007fap","points":[[0,0],[9,9]]}]}"#,
                #"templates[0].name "z\u007fap" has a control character"#
            ),
        ] {
            do {
                _ = try TemplateLibrary(json: Data(json.utf8), source: "test.json")
                Issue.record("\(json) was taken")
            } catch {
                #expect(error.code == .malformedLibrary && error.message == "test.json: " + problem, "\(error)")
            }
        }
        // Other characters beyond ASCII are names like any.
        let fine = head + #""name":"zaubersprüche ✨","templates":[{"name":"zap ⚡","points":[[0,0],[9,9]]}]}"#
        #expect((try? TemplateLibrary(json: Data(fine.utf8), source: "test.json"))?.name == "zaubersprüche ✨")
    }

    @Test("a file that is not JSON says where it stops being JSON, and a field of the wrong kind says which")
    func whereItIsWrong() throws {
        let good = String(decoding: try TemplateLibrary.builtIn().jsonData(), as: UTF8.self)
        // Cut short in the middle of its templates: the end of the text, where a ']' was due.
        let cut = String(good.prefix(5000))
        var message = Self.error(cut)
        #expect(
            message.contains("not valid JSON: the text ends early") && message.contains("(byte 5000)"), "\(message)")
        // A comma where a colon belongs, on the file's third line.
        let lines = good.replacingOccurrences(of: #""name":"default","#, with: "\n\"name\",\"default\",\n")
        message = Self.error(lines)
        #expect(message.contains("expected ':' at line 2, column 7"), "\(message)")
        message = Self.error(good.replacingOccurrences(of: #"[[50,242]"#, with: #"[[50,"242"]"#))
        #expect(message.contains("templates[0].points[0][1]: expected a number, found a string"), "\(message)")
        // A list where an object belongs, said in JSON's words, not Swift's ("expected Dictionary<String, Any>").
        message = Self.error(#"[{"name": "x"}]"#)
        #expect(message.hasSuffix("top level: expected an object, found a list"), "\(message)")
        // A count with a fraction, among thousands of coordinates with fractions: the one that does not fit is
        // found, where Foundation said "The given data was not valid JSON" of valid JSON.
        let version = good.replacingOccurrences(of: #""neighbors":3,"#, with: #""neighbors":2.5,"#)
        #expect(version != good)
        message = Self.error(version)
        let offset = try #require(version.utf8.firstRange(of: "2.5".utf8)).lowerBound
        let byte = version.utf8.distance(from: version.utf8.startIndex, to: offset)
        #expect(
            message.contains("the number 2.5 at line 1, column \(byte + 1) (byte \(byte)) does not fit"), "\(message)")
    }

    @Test("a comma after the last item or a field given twice is refused, where Foundation alone took them silently")
    func strictText() throws {
        let good = String(decoding: try TemplateLibrary.builtIn().jsonData(), as: UTF8.self)
        var message = Self.error(good.replacingOccurrences(of: "]]}],", with: "]],}],"))
        #expect(message.hasPrefix("test.json: not valid JSON: a comma after the last member at line 1"), "\(message)")
        message = Self.error(good.replacingOccurrences(of: #"[[50,242],"#, with: #"[[50,242,],"#))
        #expect(message.contains("a comma after the last element"), "\(message)")
        // Given twice, Foundation's decoder took the first threshold and Python's `json` the last.
        message = Self.error(
            good.replacingOccurrences(of: #""minimumScore":0.6,"#, with: #""minimumScore":0.6,"minimumScore":0.9,"#))
        #expect(message.contains(#"the key "minimumScore" a second time in one object"#), "\(message)")
        // A byte order mark before the text is passed over, as before.
        let marked = try TemplateLibrary(json: Data(("\u{FEFF}" + good).utf8), source: "test.json")
        #expect(marked == (try TemplateLibrary.builtIn()))
    }

    /// The message of the error a library of `json` is refused with.
    static func error(_ json: String) -> String {
        do {
            _ = try TemplateLibrary(json: Data(json.utf8), source: "test.json")
            return "no error"
        } catch {
            return error.message
        }
    }

    @Test("a missing file is an I/O error")
    func missing() {
        #expect(throws: RecognitionError.self) { try TemplateLibrary(contentsOf: "/nonexistent/library.json") }
    }
}
