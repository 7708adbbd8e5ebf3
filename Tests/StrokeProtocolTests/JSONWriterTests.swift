import Foundation
import Testing

@testable import StrokeProtocol

@Suite("JSON writer")
struct JSONWriterTests {
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
}
