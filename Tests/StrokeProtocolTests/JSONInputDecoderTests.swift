import Foundation
import Testing

@testable import StrokeProtocol

@Suite("JSON input decoder")
struct JSONInputDecoderTests {
    private func decode(_ bytes: [UInt8]) throws(ProtocolError) -> InputMessage {
        try InputDecoder().decode(bytes)
    }

    @Test("JSON messages of every type, arrays and objects for points")
    func json() throws {
        let begin = try decode(Array(#" {"type":"begin","seq":1,"stroke":7,"pointer":2,"points":[[1,2.5,3e2]]}"#.utf8))
        #expect(begin.kind == .begin && begin.sequence == 1 && begin.stroke == 7 && begin.pointer == 2)
        #expect(begin.points == [WirePoint(x: 1, y: 2.5, t: 300)])
        let points = try decode(
            Array(
                #"{"seq":2,"points":[{"x":-1.25,"y":0.001,"t":5,"pressure":0.5},[4,5,6,1]],"stroke":7,"type":"points","extra":{"a":[1,{"b":null}]}}"#
                    .utf8))
        #expect(
            points.points == [
                WirePoint(x: -1.25, y: 0.001, t: 5, pressure: 0.5), WirePoint(x: 4, y: 5, t: 6, pressure: 1),
            ])
        let options = try decode(
            Array(
                #"{"type":"options","seq":3,"library":"sp\u00e9lls\n","orientation":"invariant","checkmark":false}"#
                    .utf8))
        #expect(options.options == SessionOptions(library: "spélls\n", orientation: "invariant", checkmark: false))
        let tilt = try decode(Array(#"{"type":"options","seq":3,"followTilt":false}"#.utf8))
        #expect(tilt.options == SessionOptions(followTilt: false))
        let strict = try decode(Array(#"{"type":"options","seq":3,"minimumScore":0.7,"library":"x"}"#.utf8))
        #expect(strict.options == SessionOptions(library: "x", minimumScore: 0.7))
        let scores = try decode(Array(#"{"type":"options","seq":3,"gestureScores":{"fire":0.8,"ice ❄":0,"v":1}}"#.utf8))
        #expect(scores.options == SessionOptions(gestureScores: ["fire": 0.8, "ice ❄": 0, "v": 1]))
        let none = try decode(Array(#"{"type":"options","seq":3,"gestureScores":{}}"#.utf8))
        #expect(none.options == SessionOptions(gestureScores: [:]))
        let tilted = try decode(Array(#"{"type":"options","seq":3,"tilt":-45,"followTilt":true}"#.utf8))
        #expect(tilted.options == SessionOptions(followTilt: true, tilt: -45))
        #expect(try decode(Array(#"{"type":"options","seq":3,"tilt":30.0}"#.utf8)).options == SessionOptions(tilt: 30))
        // The fields of options in another message are ignored, unchecked, as unknown fields are.
        let stray = try decode(
            Array(#"{"type":"points","seq":4,"stroke":1,"points":[[1,2,3]],"minimumScore":"x","library":7}"#.utf8))
        #expect(stray.kind == .points && stray.options == nil && stray.points.count == 1)
        #expect(try decode(Array(#"{"type":"close","seq":4294967295,"v":1}"#.utf8)).sequence == UInt32.max)
        #expect(try decode(Array(#"{"type":"cancel","seq":5,"stroke":0}"#.utf8)).kind == .cancel)
        #expect(try decode(Array(#"{"type":"end","seq":6,"stroke":1}"#.utf8)).points.isEmpty)
    }

    @Test("an options message chooses gestures by name, or all of them again with \"*\"")
    func gestures() throws {
        let chosen = try decode(Array(#"{"type":"options","seq":1,"gestures":[ "circle" , "c\u00e9" ,"circle"]}"#.utf8))
        #expect(chosen.options == SessionOptions(gestures: .only(["circle", "cé", "circle"])))
        // Beyond the first 65,536 characters, as Python's json.dumps escapes them: a surrogate pair.
        let emoji = try decode(
            Array(#"{"type":"options","seq":1,"gestures":["\ud83d\udd25 fire", "\uD83C\uDFAF"]}"#.utf8))
        #expect(emoji.options == SessionOptions(gestures: .only(["🔥 fire", "🎯"])))
        for lone in [#"\ud83d"#, #"\ud83d x"#, #"\udd25"#, #"\ud83d\u0041"#, #"\ud83d\ud83d"#] {
            let text = #"{"type":"options","seq":1,"gestures":[""# + lone + #""]}"#
            #expect(throws: ProtocolError.self, "\(lone)") { try decode(Array(text.utf8)) }
        }
        let all = try decode(Array(#"{"type":"options","gestures":"*","seq":2}"#.utf8))
        #expect(all.options == SessionOptions(gestures: .all))
        let most = (1...SessionOptions.Gestures.maximumCount).map { "g\($0)" }
        let text = #"{"type":"options","seq":3,"gestures":["# + most.map { "\"\($0)\"" }.joined(separator: ",") + "]}"
        #expect(try decode(Array(text.utf8)).options?.gestures == .only(most))
    }

    @Test(
        "malformed JSON gives the right code",
        arguments: [
            ("", "malformed_json"), ("{", "malformed_json"), ("{\"type\":\"close\",\"seq\":1} x", "malformed_json"),
            ("{\"type\":\"close\",\"seq\":01}", "malformed_json"), ("{\"type\":close}", "malformed_json"),
            ("{\"type\":\"close\",\"seq\":4294967296}", "invalid_field"),
            ("{\"type\":\"close\",\"seq\":1.5}", "invalid_field"),
            ("{\"type\":\"points\",\"seq\":1,\"stroke\":1,\"points\":[]}", "invalid_field"),
            ("{\"type\":\"points\",\"seq\":1,\"stroke\":1,\"points\":[[1,2,-1e400]]}", "non_finite"),
            ("{\"type\":\"points\",\"seq\":1,\"stroke\":1,\"points\":[{\"x\":1,\"y\":2}]}", "invalid_field"),
            ("{\"type\":\"options\",\"seq\":1,\"orientation\":\"sideways\"}", "invalid_field"),
            ("{\"seq\":1}", "invalid_field"), ("{\"type\":7,\"seq\":1}", "invalid_field"),
            ("{\"type\":\"options\",\"seq\":1,\"multistroke\":10001}", "invalid_field"),
            ("{\"type\":\"options\",\"seq\":1,\"multistroke\":-1}", "invalid_field"),
            ("{\"type\":\"options\",\"seq\":1,\"multistroke\":\"500\"}", "invalid_field"),
            ("{\"type\":\"options\",\"seq\":1,\"minimumSize\":-1}", "invalid_field"),
            ("{\"type\":\"options\",\"seq\":1,\"followTilt\":1}", "invalid_field"),
            ("{\"type\":\"options\",\"seq\":1,\"tilt\":46}", "invalid_field"),
            ("{\"type\":\"options\",\"seq\":1,\"tilt\":-46}", "invalid_field"),
            ("{\"type\":\"options\",\"seq\":1,\"tilt\":1.5}", "invalid_field"),
            ("{\"type\":\"options\",\"seq\":1,\"tilt\":\"10\"}", "invalid_field"),
            ("{\"type\":\"options\",\"seq\":1,\"tilt\":true}", "invalid_field"),
            ("{\"type\":\"options\",\"seq\":1,\"minimumScore\":1.01}", "invalid_field"),
            ("{\"type\":\"options\",\"seq\":1,\"minimumScore\":-0.1}", "invalid_field"),
            ("{\"type\":\"options\",\"seq\":1,\"minimumScore\":\"0.7\"}", "invalid_field"),
            ("{\"type\":\"options\",\"seq\":1,\"minimumScore\":null}", "invalid_field"),
            ("{\"type\":\"options\",\"seq\":1,\"gestureScores\":{\"fire\":1.01}}", "invalid_field"),
            ("{\"type\":\"options\",\"seq\":1,\"gestureScores\":{\"fire\":-0.1}}", "invalid_field"),
            ("{\"type\":\"options\",\"seq\":1,\"gestureScores\":{\"fire\":\"0.7\"}}", "invalid_field"),
            ("{\"type\":\"options\",\"seq\":1,\"gestureScores\":{\"*\":0.7}}", "invalid_field"),
            ("{\"type\":\"options\",\"seq\":1,\"gestureScores\":{\"\":0.7}}", "invalid_field"),
            ("{\"type\":\"options\",\"seq\":1,\"gestureScores\":{\"a\":0.7,\"a\":0.8}}", "invalid_field"),
            ("{\"type\":\"options\",\"seq\":1,\"gestureScores\":[\"fire\"]}", "invalid_field"),
            ("{\"type\":\"options\",\"seq\":1,\"gestureScores\":null}", "invalid_field"),
            ("{\"type\":\"options\",\"seq\":1,\"gestureScores\":{\"fire\":0.7}", "malformed_json"),
            (
                "{\"type\":\"options\",\"seq\":1,\"gestureScores\":{"
                    + (0...32).map { "\"g\($0)\":0.5" }.joined(separator: ",") + "}}", "invalid_field"
            ),
            ("{\"type\":\"options\",\"seq\":1,\"followTilt\":\"no\"}", "invalid_field"),
            ("{\"type\":\"options\",\"seq\":1,\"followTilt\":null}", "invalid_field"),
            ("{\"type\":\"options\",\"seq\":1,\"minimumSize\":1e999}", "invalid_field"),
            // A pressure past a 32-bit float's range (found by `make fuzz-coverage`'s input target).
            ("{\"type\":\"begin\",\"seq\":1,\"stroke\":1,\"points\":[[1,2,3,1e39]]}", "non_finite"),
            (
                "{\"type\":\"begin\",\"seq\":1,\"stroke\":1,\"points\":[{\"x\":1,\"y\":2,\"t\":3,\"pressure\":-4e38}]}",
                "non_finite"
            ),
            ("{\"type\":\"options\",\"seq\":1,\"minimumSize\":\"20\"}", "invalid_field"),
            ("{\"type\":\"options\",\"seq\":1,\"minimumSize\":null}", "invalid_field"),
            ("{\"type\":\"options\",\"seq\":1,\"gestures\":[]}", "invalid_field"),
            ("{\"type\":\"options\",\"seq\":1,\"gestures\":\"circle\"}", "invalid_field"),
            ("{\"type\":\"options\",\"seq\":1,\"gestures\":[\"circle\",7]}", "invalid_field"),
            ("{\"type\":\"options\",\"seq\":1,\"gestures\":[\"circle\",\"*\"]}", "invalid_field"),
            ("{\"type\":\"options\",\"seq\":1,\"gestures\":[\"\"]}", "invalid_field"),
            ("{\"type\":\"options\",\"seq\":1,\"gestures\":[\"a\\u0007\"]}", "invalid_field"),
            ("{\"type\":\"options\",\"seq\":1,\"gestures\":{\"circle\":true}}", "invalid_field"),
            ("{\"type\":\"options\",\"seq\":1,\"gestures\":[\"circle\"}", "malformed_json"),
            ("{\"type\":\"options\",\"seq\":1,\"gestures\":[\"circle\",]}", "malformed_json"),
            (
                "{\"type\":\"options\",\"seq\":1,\"gestures\":["
                    + (0...SessionOptions.Gestures.maximumCount).map { "\"g\($0)\"" }.joined(separator: ",") + "]}",
                "invalid_field"
            ),
            (
                "{\"type\":\"options\",\"seq\":1,\"gestures\":[\"" + String(repeating: "a", count: 65) + "\"]}",
                "invalid_field"
            ),
            ("{\"type\":\"begin\",\"seq\":1,\"stroke\":1,\"last\":true}", "invalid_field"),
            ("{\"type\":\"end\",\"seq\":1,\"stroke\":1,\"last\":1}", "invalid_field"),
            (String(repeating: "[", count: 100), "malformed_json"),
            ("{\"type\":\"close\",\"seq\":1,\"x\":" + String(repeating: "[", count: 100) + "}", "malformed_json"),
        ])
    func malformed(text: String, code: String) {
        do {
            _ = try decode(Array(text.utf8))
            Issue.record("expected \(code)")
        } catch {
            #expect(error.code.rawValue == code)
        }
    }

    @Test("coordinates are correctly rounded, on the fast path and off it")
    func parsedNumbers() throws {
        var texts = [
            "0", "-0", "1", "0.1", "0.3", "123.456", "-98.7654321", "1e22", "1e23", "1.7976931348623157e308",
            "4.9e-324", "2.2250738585072014e-308", "9007199254740992", "9007199254740993", "123456789012345678",
            "1234567890123456789", "12345678901234567890", "0.000000000000000000001", "3.14159265358979323846",
            "1E5", "2.5e-3", "-7.0E+2", "0.1e-22", "10000000000000000000000e-22",
        ]
        // Digit runs of every length around the eight read at a time, in the integer part and the fraction.
        for length in 1...21 {
            let run = String("98765432109876543210987".prefix(length))
            texts += [run, "0.\(run)", "1\(run).5", "-\(run)e-3", String(repeating: "9", count: length)]
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let value = Double.random(in: -1e6...1e6, using: &generator)
            texts.append(String(format: "%.\(Int.random(in: 0...17, using: &generator))f", value))
            texts.append(String(value))
        }
        for text in texts {
            // First in the point, and last in the message (fewer than eight bytes after it).
            let message = try decode(
                Array(#"{"type":"points","seq":1,"stroke":1,"points":[[\#(text),0,0],[0,0,\#(text)]]}"#.utf8))
            let expected = try #require(Double(text), "\(text)")
            #expect(message.points[0].x.bitPattern == expected.bitPattern, "\(text)")
            #expect(message.points[1].t.bitPattern == expected.bitPattern, "\(text) at the end")
        }
    }

    @Test("compact [x,y,t] points read by the fast path give the same values and errors as the general reader")
    func compactPointsMatchGeneralReader() throws {
        var generator = SplitMix(seed: 11)
        var texts = [
            "0", "-0", "1", "-1", "0.5", "-0.125", "123.456", "1e3", "1E-3", "2.5e+2", "9007199254740993",
            "9007199254740992", "12345678901234567890", "1234567890123456789", "0.0000000000000000000001",
            "0.00000000000000000000001", "11462293", "66", "-252.75", "999999999999999", "-999999999999999",
            "1000000000000000", "-1000000000000000", "10", "-10",
        ]
        for _ in 0..<3_000 {
            let integer = Int64(bitPattern: generator.next()) % 100_000_000
            let fraction = generator.next() % 1_000
            texts.append(generator.next() % 2 == 0 ? "\(integer)" : "\(integer).\(fraction)")
        }
        for text in texts {
            let compact = #"{"type":"points","seq":1,"stroke":1,"points":[[\#(text),\#(text),\#(text)],[1,2,3]]}"#
            let spaced = #"{"type":"points","seq":1,"stroke":1,"points":[[ \#(text), \#(text), \#(text)],[1,2,3]]}"#
            let fast = try decode(Array(compact.utf8))
            let general = try decode(Array(spaced.utf8))
            #expect(fast.points.count == 2)
            #expect(
                fast.points.map { [$0.x.bitPattern, $0.y.bitPattern, $0.t.bitPattern] }
                    == general.points.map { [$0.x.bitPattern, $0.y.bitPattern, $0.t.bitPattern] }, "\(text)")
            #expect(fast.points[0].x == Double(text), "\(text)")
        }
        // Integers and other numbers mixed within a point: a point that leaves the integer path part-way is read
        // again from its start.
        for mixed in ["[1,2.5,3]", "[1,2,3.5]", "[-1,-2,-3]", "[1,2e1,3]", "[7,8,9]", "[1,2,1000000000000000]"] {
            let spacedPoint = mixed.replacingOccurrences(of: ",", with: ", ")
            let compact = #"{"type":"points","seq":1,"stroke":1,"points":[\#(mixed),[1,2,3]]}"#
            let spaced = #"{"type":"points","seq":1,"stroke":1,"points":[\#(spacedPoint),[1,2,3]]}"#
            let fast = try decode(Array(compact.utf8))
            let general = try decode(Array(spaced.utf8))
            #expect(
                fast.points.map { [$0.x.bitPattern, $0.y.bitPattern, $0.t.bitPattern] }
                    == general.points.map { [$0.x.bitPattern, $0.y.bitPattern, $0.t.bitPattern] }, "\(mixed)")
        }
        // What the fast path declines is read, and rejected, by the general reader.
        for bad in ["01", "1.", "-", "1e", "[1,2]", "[1,2,3,4,5]", "\"1\""] {
            let text = #"{"type":"points","seq":1,"stroke":1,"points":[[\#(bad),2,3]]}"#
            #expect(throws: ProtocolError.self, "\(bad)") { try decode(Array(text.utf8)) }
        }
        let pressure = try decode(Array(#"{"type":"points","seq":1,"stroke":1,"points":[[1,2,3,0.5]]}"#.utf8))
        #expect(pressure.points[0].pressure == 0.5)
    }
}
