import Foundation
import Testing

@testable import StrokeProtocol

@Suite("Ping messages and pong events")
struct PingCodecTests {
    private func decode(_ text: String) throws(ProtocolError) -> InputMessage {
        try InputDecoder().decode(Array(text.utf8))
    }

    @Test("a ping needs no seq, and says whether it had one; a reused message forgets it")
    func sequenceIsOptional() throws {
        let bare = try decode(#"{"type":"ping"}"#)
        #expect(bare.kind == .ping)
        #expect(!bare.hasSequence)
        let numbered = try decode(#"{"v":1,"type":"ping","seq":77}"#)
        #expect(numbered.kind == .ping && numbered.hasSequence && numbered.sequence == 77)
        // Every other type still needs its seq.
        #expect(throws: ProtocolError.self) { try decode(#"{"type":"close"}"#) }
        // One message value decoded again: the next message carries its own seq again.
        let decoder = InputDecoder()
        var message = InputMessage()
        for text in [#"{"type":"ping"}"#, #"{"type":"close","seq":3}"#] {
            try Array(text.utf8).withUnsafeBytes { try decoder.decode($0, into: &message) }
        }
        #expect(message.kind == .close && message.hasSequence && message.sequence == 3)
    }

    @Test("a ping carries no learn or last, and has no binary form")
    func refused() throws {
        for text in [#"{"type":"ping","learn":"zed"}"#, #"{"type":"ping","last":true}"#] {
            do {
                _ = try decode(text)
                Issue.record("accepted \(text)")
            } catch {
                #expect(error.code == .invalidField)
                #expect(error.message.contains("not of ping"))
            }
        }
        var binary = BinaryCodec.encode(InputMessage(kind: .close, sequence: 1))
        binary[2] = InputMessage.Kind.ping.rawValue
        do {
            _ = try InputDecoder().decode(binary)
            Issue.record("a binary ping was accepted")
        } catch {
            #expect(error.code == .unknownType)
        }
    }

    @Test("the JSON encoder writes a ping's seq only when it has one, and both read back the same")
    func roundTrip() throws {
        var bare = InputMessage(kind: .ping, sequence: 0)
        bare.hasSequence = false
        let text = String(decoding: JSONInputEncoder.encode(bare), as: UTF8.self)
        #expect(text == #"{"type":"ping"}"#)
        #expect(try decode(text) == bare)
        let numbered = InputMessage(kind: .ping, sequence: 9)
        #expect(try InputDecoder().decode(JSONInputEncoder.encode(numbered)) == numbered)
    }

    @Test("a pong: numbered 0, the ping's seq or null, the shard and whether the session is known")
    func pong() throws {
        var writer = JSONWriter()
        let id = Array("room42/alice".utf8)
        for sequence in [UInt32(5), nil] {
            id.withUnsafeBytes { session in
                EventEncoder.pong(
                    .init(session: session, eventSequence: 0, sequence: sequence), shard: "2/3", known: sequence != nil,
                    into: &writer)
            }
            let event = try JSONSerialization.jsonObject(with: Data(writer.bytes)) as! [String: Any]
            #expect(event["event"] as? String == "pong")
            #expect(event["session"] as? String == "room42/alice")
            #expect(event["eventSeq"] as? Int == 0)
            #expect(event["seq"] as? Int == sequence.map(Int.init))
            #expect((event["seq"] is NSNull) == (sequence == nil))
            #expect(event["shard"] as? String == "2/3")
            #expect(event["known"] as? Bool == (sequence != nil))
        }
    }
}
