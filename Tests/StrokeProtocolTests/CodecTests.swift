import Foundation
import Testing

@testable import StrokeProtocol

@Suite("Input codecs")
struct CodecTests {
    private func decode(_ bytes: [UInt8]) throws(ProtocolError) -> InputMessage {
        try InputDecoder().decode(bytes)
    }

    @Test("the binary vectors in Protocol/vectors/binary.json")
    func binaryVectors() throws {
        let vectors = try ProtocolVectors.load("binary.json")["vectors"] as! [[String: Any]]
        for vector in vectors {
            let bytes = ProtocolVectors.bytes(hex: vector["hex"] as! String)
            if let code = vector["error"] as? String {
                do {
                    _ = try decode(bytes)
                    Issue.record("\(vector["description"]!): expected \(code)")
                } catch {
                    #expect(error.code.rawValue == code, "\(vector["description"]!)")
                }
                continue
            }
            let expected = vector["decoded"] as! [String: Any]
            let message = try decode(bytes)
            #expect(message.kind.name == expected["type"] as! String)
            #expect(Int(message.sequence) == expected["seq"] as! Int)
            #expect(Int(message.stroke) == expected["stroke"] as! Int)
            #expect(Int(message.pointer) == expected["pointer"] as! Int)
            #expect(message.last == (expected["last"] as? Bool ?? false), "\(vector["description"]!)")
            let points = expected["points"] as! [[Double]]
            #expect(message.points.count == points.count)
            for (actual, wanted) in zip(message.points, points) {
                #expect([actual.x, actual.y, actual.t] == Array(wanted.prefix(3)))
                if wanted.count == 4 { #expect(Double(actual.pressure!) == wanted[3]) }
            }
            // Encoding the decoded message gives the same bytes back.
            #expect(BinaryCodec.encode(message) == bytes)
        }
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

    @Test("too many points in one message")
    func tooManyPoints() {
        let decoder = InputDecoder(maximumPointsPerMessage: 2)
        let json = Array(#"{"type":"points","seq":1,"stroke":1,"points":[[1,2,3],[1,2,3],[1,2,3]]}"#.utf8)
        #expect(throws: ProtocolError.self) { try decoder.decode(json) }
        let binary = BinaryCodec.encode(
            InputMessage(
                kind: .points, sequence: 1, stroke: 1, points: Array(repeating: WirePoint(x: 1, y: 1, t: 1), count: 3)))
        #expect(throws: ProtocolError.self) { try decoder.decode(binary) }
    }

    @Test(
        "a non-finite value in any field of any binary point names that point, and the message keeps no points",
        arguments: [5, 12]  // appended one at a time, and copied in bulk
    )
    func binaryNonFinite(count: Int) throws {
        let points = (0..<count).map { WirePoint(x: Double($0), y: 2, t: 10 * Double($0), pressure: 0.5) }
        let withPressure = BinaryCodec.encode(InputMessage(kind: .points, sequence: 1, stroke: 1, points: points))
        var plain = points
        for index in plain.indices { plain[index].pressure = nil }
        let withoutPressure = BinaryCodec.encode(InputMessage(kind: .points, sequence: 1, stroke: 1, points: plain))
        // (bytes, stride, field offset within a point, value width)
        let cases: [([UInt8], Int, Int, Int)] = [
            (withoutPressure, 16, 0, 4), (withoutPressure, 16, 4, 4), (withoutPressure, 16, 8, 8),
            (withPressure, 20, 8, 8), (withPressure, 20, 16, 4),
        ]
        let decoder = InputDecoder()
        var message = InputMessage()
        /// Decodes into `message`, the same value every time; the error, if any.
        func decode(_ bytes: [UInt8]) -> ProtocolError? {
            bytes.withUnsafeBytes { raw -> ProtocolError? in
                do {
                    try decoder.decode(raw, into: &message)
                    return nil
                } catch {
                    return error as? ProtocolError
                }
            }
        }
        let broken = count - 2
        for (bytes, stride, field, width) in cases {
            var changed = bytes
            let start = BinaryCodec.headerSize + broken * stride + field
            let nan: [UInt8] = width == 4 ? [0x00, 0x00, 0xC0, 0x7F] : [0, 0, 0, 0, 0, 0, 0xF8, 0x7F]
            changed.replaceSubrange(start..<(start + width), with: nan)
            let error = decode(changed)
            #expect(error?.code == .nonFinite, "stride \(stride), field \(field)")
            #expect(error?.message.contains("point \(broken) ") == true, "\(String(describing: error))")
            #expect(message.points.isEmpty)
            // The same message value decodes the intact bytes afterwards.
            #expect(decode(bytes) == nil)
            #expect(message.points.map(\.x) == points.map(\.x))
            #expect(message.points.map(\.t) == points.map(\.t))
            #expect(message.points.map(\.pressure) == (stride == 20 ? points.map(\.pressure) : plain.map(\.pressure)))
        }
    }

    @Test("one message value decoded again and again holds only the latest message's points, in either form")
    func reusedMessage() throws {
        func points(_ count: Int, from start: Int) -> [WirePoint] {
            (0..<count).map { WirePoint(x: Double(start + $0), y: 1, t: Double($0)) }
        }
        // Counts that take both ways of clearing (a few points, many) and of decoding (appended, copied in bulk).
        let sizes = [12, 1, 3, 0, 40, 4, 5, 2, 9]
        let decoder = InputDecoder()
        var message = InputMessage()
        for (step, count) in sizes.enumerated() {
            let expected = points(count, from: 100 * step)
            let sent = InputMessage(
                kind: count == 0 ? .end : .points, sequence: UInt32(step + 1), stroke: 1, points: expected)
            var writer = JSONWriter()
            JSONInputEncoder.encode(sent, into: &writer)
            for bytes in [BinaryCodec.encode(sent), writer.bytes] {
                try bytes.withUnsafeBytes { raw in try decoder.decode(raw, into: &message) }
                #expect(message.points == expected, "step \(step), \(count) points")
                #expect(message.sequence == UInt32(step + 1))
            }
        }
        // A repeated "points" field replaces the earlier one.
        let twice = Array(#"{"type":"points","seq":1,"stroke":1,"points":[[1,2,3],[4,5,6]],"points":[[7,8,9]]}"#.utf8)
        #expect(try decoder.decode(twice).points == [WirePoint(x: 7, y: 8, t: 9)])
    }

    @Test("JSON encoding round-trips through the decoder")
    func roundTrip() throws {
        let messages = [
            InputMessage(
                kind: .begin, sequence: 1, stroke: 3, pointer: 4,
                points: [WirePoint(x: 1.5, y: -2, t: 1e12, pressure: 0.25)]),
            InputMessage(
                kind: .options, sequence: 2,
                options: SessionOptions(library: "a\"b", orientation: "sensitive", checkmark: true)),
            InputMessage(kind: .close, sequence: 3),
            InputMessage(kind: .options, sequence: 4, options: SessionOptions(multistroke: 600)),
            InputMessage(kind: .end, sequence: 5, stroke: 2, last: true),
            InputMessage(
                kind: .options, sequence: 6,
                options: SessionOptions(gestures: .only(["circle", "x\"y", "é", "circle"]))),
            InputMessage(kind: .options, sequence: 7, options: SessionOptions(checkmark: false, gestures: .all)),
            InputMessage(kind: .options, sequence: 8, options: SessionOptions(minimumSize: 20)),
            InputMessage(kind: .options, sequence: 9, options: SessionOptions(minimumSize: 0.015625)),
            InputMessage(kind: .options, sequence: 10, options: SessionOptions(minimumSize: 0)),
            InputMessage(kind: .options, sequence: 11, options: SessionOptions(followTilt: false)),
            InputMessage(kind: .options, sequence: 12, options: SessionOptions(checkmark: true, followTilt: true)),
            InputMessage(kind: .options, sequence: 13, options: SessionOptions(minimumScore: 0.65)),
            InputMessage(kind: .options, sequence: 14, options: SessionOptions(minimumScore: 0)),
            InputMessage(kind: .options, sequence: 15, options: SessionOptions(minimumScore: 1)),
            InputMessage(
                kind: .options, sequence: 16, options: SessionOptions(gestureScores: ["fire": 0.8, "ice \"❄\"": 0.65])),
            InputMessage(kind: .options, sequence: 17, options: SessionOptions(gestureScores: [:])),
            InputMessage(kind: .options, sequence: 18, options: SessionOptions(tilt: -45)),
            InputMessage(kind: .options, sequence: 19, options: SessionOptions(followTilt: true, tilt: 12)),
        ]
        for message in messages {
            #expect(try decode(JSONInputEncoder.encode(message)) == message)
        }
    }

    @Test("the last stroke of a gesture, in either form; the binary flag belongs to end messages")
    func lastStroke() throws {
        let end = InputMessage(kind: .end, sequence: 9, stroke: 4, points: [WirePoint(x: 1, y: 2, t: 3)], last: true)
        let binary = BinaryCodec.encode(end)
        #expect(binary[3] == 2)
        #expect(try decode(binary) == end)
        #expect(try decode(Array(#"{"type":"end","seq":9,"stroke":4,"last":false}"#.utf8)).last == false)
        var begin = binary
        begin[2] = InputMessage.Kind.begin.rawValue
        do {
            _ = try decode(begin)
            Issue.record("a begin with the last-stroke flag was accepted")
        } catch {
            #expect(error.code == .malformedBinary)
            #expect(error.message.contains("belongs to end"))
        }
        var unknown = binary
        unknown[3] = 4
        #expect(throws: ProtocolError.self) { try decode(unknown) }
    }

    @Test("numbers are written compactly and exactly")
    func numbers() {
        var writer = JSONWriter()
        for (value, text) in [
            (0.0, "0"), (1.5, "1.5"), (-0.05, "-0.05"), (123456.0, "123456"), (0.84791, "0.8479"), (1e-9, "0"),
        ] {
            writer.reset()
            writer.number(value, decimals: 4)
            #expect(String(decoding: writer.bytes, as: UTF8.self) == text)
        }
        writer.reset()
        writer.number(.nan)
        #expect(String(decoding: writer.bytes, as: UTF8.self) == "null")
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

    @Test("numbers, integers and strings are written exactly as a plain byte-by-byte reference writes them")
    func writerAgainstReference() {
        var generator = SplitMix(seed: 7)
        var values: [Double] = [
            0, -0.0, 1, -1, 0.5, 0.05, 0.000_05, 0.000_049, 1e-7, 9.999_95, 99.999_95, 1e15, 1e17, 9e17, 1e18, 9.2e18,
            1e19, 1e300, -1e300, .nan, .infinity, -.infinity, .pi, 123_456.789, 1.0 / 3, 1.7e12 + 0.123,
        ]
        for _ in 0..<20_000 {
            let bits = generator.next()
            switch bits % 3 {
            case 0: values.append(Double(Int64(bitPattern: generator.next()) % 1_000_000) / 1000)
            case 1: values.append(Double(Int64(bitPattern: generator.next()) % (1 << 40)) / Double(1 << 20))
            default: values.append(Double(bitPattern: generator.next() & 0x7FEF_FFFF_FFFF_FFFF))
            }
        }
        var writer = JSONWriter()
        for (index, value) in values.enumerated() {
            let decimals = index % 9
            writer.reset()
            writer.number(value, decimals: decimals)
            #expect(writer.bytes == Reference.number(value, decimals: decimals), "\(value), \(decimals) decimals")
        }
        // Halves after scaling, which round away from zero, and their neighbours, at every number of decimals.
        var halves: [Double] = [0.5, 2.5, 0.25, 0.125, 1.125, 0.0625, 4_503_599_627_370_495.5, 4_503_599_627_370_497]
        halves += halves.map { $0.nextUp } + halves.map { $0.nextDown }
        for value in halves + halves.map({ -$0 }) {
            for decimals in 0...8 {
                writer.reset()
                writer.number(value, decimals: decimals)
                #expect(writer.bytes == Reference.number(value, decimals: decimals), "\(value), \(decimals) decimals")
            }
        }
        var integers: [Int64] = [0, 1, -1, 9, 10, 99, 100, .max, .min, .min + 1]
        for _ in 0..<5_000 { integers.append(Int64(bitPattern: generator.next()) >> (generator.next() % 63)) }
        for value in integers {
            writer.reset()
            writer.integer(value)
            #expect(String(decoding: writer.bytes, as: UTF8.self) == String(value))
        }
        writer.reset()
        writer.integer(UInt64.max)
        #expect(String(decoding: writer.bytes, as: UTF8.self) == String(UInt64.max))
        let strings = [
            "", "a", "a\"b", "back\\slash", "tab\there", "\u{1}\u{1f}\n", "joueur-é", "日本",
            String(repeating: "x", count: 300),
            String(repeating: "\"", count: 300),
        ]
        for string in strings {
            writer.reset()
            writer.string(string)
            #expect(writer.bytes == Reference.string(Array(string.utf8)))
        }
        // Every byte at every place of two words and a tail, among fillers next to the bytes that need an escape
        // (the writer passes over eight bytes at a time where none does).
        for filler: UInt8 in [0x61, 0x20, 0x21, 0x23, 0x5B, 0x5D, 0x7F, 0x80, 0xFF] {
            for byte in UInt8.min...UInt8.max {
                for place in 0..<19 {
                    var raw = [UInt8](repeating: filler, count: 19)
                    raw[place] = byte
                    writer.reset()
                    raw.withUnsafeBytes { writer.string($0) }
                    #expect(writer.bytes == Reference.string(raw), "byte \(byte) at \(place) among \(filler)")
                }
            }
        }
        writer.reset()
        writer.beginObject()
        writer.key("a")
        writer.beginArray()
        writer.bool(true)
        writer.null()
        writer.number(-1.25)
        writer.endArray()
        writer.keyDynamic("k\"")
        writer.bool(false)
        writer.endObject()
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #"{"a":[true,null,-1.25],"k\"":false}"#)
    }

    @Test("writes over the stack's 1,024 bytes use the writer's scratch and keep everything in order, copies too")
    func largeWrites() {
        var writer = JSONWriter()
        var expected = [UInt8]()
        writer.beginArray()
        expected += Array("[".utf8)
        for k in 0..<40 {
            // Bounds alternate below and above the stack's limit, and grow (the scratch grows with them).
            let text = String(repeating: k % 2 == 0 ? "é" : "\"", count: k % 2 == 0 ? 3 : 40 * k + 200)
            writer.string(text)
            writer.integer(k)
            expected += (k == 0 ? [] : Array(",".utf8)) + Reference.string(Array(text.utf8)) + Array(",\(k)".utf8)
        }
        // A copy shares the scratch until one of them writes: each must keep its own bytes.
        var copy = writer
        copy.string(String(repeating: "c", count: 500))
        writer.string(String(repeating: "w", count: 600))
        writer.endArray()
        copy.endArray()
        #expect(
            writer.bytes == expected + Array(",".utf8)
                + Reference.string(Array(repeating: UInt8(ascii: "w"), count: 600)) + Array("]".utf8))
        #expect(
            copy.bytes == expected + Array(",".utf8) + Reference.string(Array(repeating: UInt8(ascii: "c"), count: 500))
                + Array("]".utf8))
    }

    /// The writer's output as its first version wrote it, a byte at a time: the reference for the test above.
    enum Reference {
        static func number(_ value: Double, decimals: Int) -> [UInt8] {
            guard value.isFinite else { return Array("null".utf8) }
            var scale = 1.0
            for _ in 0..<decimals { scale *= 10 }
            let scaled = (abs(value) * scale).rounded()
            guard scaled < 9e18 else { return Array("\(value)".utf8) }
            var units = UInt64(scaled)
            var text = value < 0 && units != 0 ? "-" : ""
            let divisor = UInt64(scale)
            text += String(units / divisor)
            units %= divisor
            guard units != 0 else { return Array(text.utf8) }
            var digits = decimals
            while units % 10 == 0 {
                units /= 10
                digits -= 1
            }
            let fraction = String(units)
            text += "." + String(repeating: "0", count: digits - fraction.count) + fraction
            return Array(text.utf8)
        }

        static func string(_ raw: [UInt8]) -> [UInt8] {
            var out: [UInt8] = [0x22]
            for byte in raw {
                switch byte {
                case 0x22, 0x5C: out += [0x5C, byte]
                case 0..<0x20: out += Array(String(format: "\\u%04x", Int(byte)).utf8)
                default: out.append(byte)
                }
            }
            return out + [0x22]
        }
    }

    /// A small deterministic generator, so that failures reproduce.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}
