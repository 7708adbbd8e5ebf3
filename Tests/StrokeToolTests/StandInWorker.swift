import Foundation
import Synchronization
import ZeroMQ

/// A stand-in for the worker on loopback that answers as two sessions would: the session a client serves, and
/// another whose id starts with it (`SESSION-2`), whose events the client's subscription by prefix also brings
/// (Protocol/README.md, section 1).
///
/// Each ping of the session is answered with a pong of the other session first, then the session's own; the end
/// of a stroke (binary, as `stroke-tool send` sends it) with a `match` of the other session's stroke of the same id
/// first, then a `nomatch` of the session's. A client that takes the other session's events reports a match. With
/// `undecodable`, each answer of the other session comes after a message on its topic that is not an event. With
/// `timedPongs` false, only the pings numbered 0 (those `stroke-tool ping` sends until the first pong) are answered.
/// Its sockets live on a thread of their own, which ends after the stroke's answer or after `timeout` seconds.
final class StandInWorker: Sendable {
    /// Where the client's producer connects (the stand-in's SUB).
    let input: String
    /// Where the client's consumer connects (the stand-in's PUB).
    let output: String
    private let finished = DispatchSemaphore(value: 0)

    /// Starts the stand-in for `session`.
    init(session: String, undecodable: Bool = false, timedPongs: Bool = true, timeout: Double = 20) throws {
        let ready = DispatchSemaphore(value: 0)
        let endpoints = Handoff()
        let finished = self.finished
        let thread = Thread {
            defer { finished.signal() }
            do throws(ZMQError) {
                let context = try ZMQContext()
                let intake = try ZMQSocket(context, .sub)
                try intake.subscribe("")
                try intake.setTimeouts(receive: 100)
                try intake.bind("tcp://127.0.0.1:*")
                let events = try ZMQSocket(context, .pub)
                try events.setLinger(milliseconds: 1000)
                try events.bind("tcp://127.0.0.1:*")
                endpoints.value.withLock { $0 = .success((intake.lastEndpoint, events.lastEndpoint)) }
                ready.signal()
                try Self.serve(
                    session, undecodable: undecodable, timedPongs: timedPongs, intake: intake, events: events,
                    until: Date().addingTimeInterval(timeout))
            } catch {
                endpoints.value.withLock { $0 = .failure(error) }
                ready.signal()
            }
        }
        thread.start()
        ready.wait()
        (input, output) = try endpoints.value.withLock { $0! }.get()
    }

    /// The endpoints the stand-in's thread bound, or why it could not, handed to the test's thread.
    private final class Handoff: Sendable {
        let value = Mutex<Result<(String, String), ZMQError>?>(nil)
    }

    /// Waits until the stand-in has answered the stroke (or timed out) and closed its sockets.
    func wait() { finished.wait() }

    private static func serve(
        _ session: String, undecodable: Bool, timedPongs: Bool, intake: ZMQSocket, events: ZMQSocket,
        until deadline: Date
    ) throws(ZMQError) {
        let other = session + "-2"
        func publish(_ name: String, _ fields: String) throws(ZMQError) {
            if undecodable && name == other {
                _ = try events.sendMultipart([Array(name.utf8), Array(#"{"v":1,"event":"#.utf8)])
            }
            let payload = #"{"v":1,"session":"\#(name)","eventSeq":\#(fields)}"#
            _ = try events.sendMultipart([Array(name.utf8), Array(payload.utf8)])
        }
        while Date() < deadline {
            guard let frames = try intake.receiveMultipart(), frames.count == 2 else { continue }
            let payload = frames[1]
            let text = String(decoding: payload, as: UTF8.self)
            if payload.first == UInt8(ascii: "{"), text.contains(#""ping""#) {
                guard timedPongs || text.contains(#""seq":0}"#) else { continue }
                for name in [other, session] {
                    try publish(name, #"0,"event":"pong","seq":null,"shard":"0/1","known":false"#)
                }
            } else if payload.count >= 16, payload[0] == 0xB1, payload[2] == 3 {
                // A binary end: its seq and stroke, little-endian.
                func word(_ at: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(payload[at + $1]) << (8 * $1) } }
                let answer = #""seq":\#(word(4)),"stroke":\#(word(8)),"pointer":0,"points":2,"library":"default""#
                try publish(other, #"1,"event":"match","name":"check","score":0.9,"candidates":[],"# + answer)
                try publish(session, #"1,"event":"nomatch","reason":"below_threshold","candidates":[],"# + answer)
                return
            }
        }
    }
}
