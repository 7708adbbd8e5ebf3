import Foundation
import Synchronization
import Testing

@testable import ZeroMQ

@Suite("CURVE keys and the ZAP handler")
struct ZMQCurveTests {
    @Test("a generated pair: 40 Z85 characters each, the public key derived from the secret one, Z85 round trips")
    func keyPairs() throws {
        #expect(ZMQCurveKeyPair.isAvailable)
        let keys = try ZMQCurveKeyPair.generate()
        #expect(keys.publicKey.utf8.count == 40 && keys.secretKey.utf8.count == 40)
        #expect(try ZMQCurveKeyPair(secretKey: keys.secretKey) == keys)
        let bytes = try #require(ZMQCurveKeyPair.decode(keys.publicKey))
        #expect(bytes.count == 32)
        #expect(ZMQCurveKeyPair.encode(bytes) == keys.publicKey)
        #expect(try ZMQCurveKeyPair.generate() != keys)
    }

    @Test("malformed keys are refused, not passed to libzmq")
    func malformedKeys() throws {
        let keys = try ZMQCurveKeyPair.generate()
        for text in [
            "", String(keys.secretKey.dropLast()), keys.secretKey + "0", String(keys.secretKey.dropLast()) + " ",
            String(keys.secretKey.dropLast()) + "é",
        ] {
            #expect(ZMQCurveKeyPair.decode(text) == nil)
            let error = #expect(throws: ZMQError.self) { try ZMQCurveKeyPair(secretKey: text) }
            #expect(error?.code == .invalidArgument)
        }
        let socket = try ZMQSocket(try ZMQContext(), .sub)
        let error = #expect(throws: ZMQError.self) { try socket.makeCurveClient(keys, serverKey: "short") }
        #expect(error?.code == .invalidArgument)
    }

    @Test("a malformed ZAP request gets a 500 reply; a decision becomes 200 or 400 with its request id")
    func replies() {
        let allow = { (_: ZMQAuthenticator.Request) in ZMQAuthenticator.Decision.allow(userID: "u") }
        #expect(ZMQAuthenticator.reply(to: [Array("1.0".utf8), [7]], decide: allow)[2] == Array("500".utf8))
        #expect(ZMQAuthenticator.reply(to: [], decide: allow)[2] == Array("500".utf8))
        let request = [
            Array("1.0".utf8), [9], Array("d".utf8), Array("127.0.0.1".utf8), [], Array("CURVE".utf8), [1, 2],
        ]
        #expect(
            ZMQAuthenticator.reply(to: request, decide: allow) == [
                Array("1.0".utf8), [9], Array("200".utf8), Array("OK".utf8), Array("u".utf8), [],
            ])
        let denied = ZMQAuthenticator.reply(to: request) { request in
            #expect(request.credentials == [[1, 2]] && request.mechanism == "CURVE" && request.domain == "d")
            return .deny(reason: "no")
        }
        #expect(denied == [Array("1.0".utf8), [9], Array("400".utf8), Array("no".utf8), [], []])
    }

    @Test("over tcp: the handler admits the listed client, refuses the other, and only the first one's messages arrive")
    func handshake() async throws {
        let context = try ZMQContext()
        let server = try ZMQCurveKeyPair.generate()
        let admitted = try ZMQCurveKeyPair.generate()
        let stranger = try ZMQCurveKeyPair.generate()
        let seen = Mutex<[String]>([])
        let ready = Atomic<Bool>(false)
        let stop = Atomic<Bool>(false)
        let admittedKey = ZMQCurveKeyPair.decode(admitted.publicKey)!
        let handler = Thread {
            try? ZMQAuthenticator.run(
                context: context, checkMilliseconds: 10, ready: { ready.store(true, ordering: .releasing) },
                stopped: { stop.load(ordering: .acquiring) }
            ) { request in
                let key = ZMQCurveKeyPair.encode(request.credentials[0])
                seen.withLock { $0.append(key) }
                return request.credentials[0] == admittedKey ? .allow(userID: key) : .deny(reason: "unknown")
            }
        }
        handler.start()
        defer { stop.store(true, ordering: .releasing) }
        while !ready.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(1)) }

        let pull = try ZMQSocket(context, .pull)
        try pull.setLinger(milliseconds: 0)
        try pull.makeCurveServer(server)
        try pull.bind("tcp://127.0.0.1:*")
        try pull.setTimeouts(receive: 10_000)
        var pushes = [ZMQSocket]()
        for keys in [stranger, admitted] {
            let push = try ZMQSocket(context, .push)
            try push.setLinger(milliseconds: 0)
            try push.makeCurveClient(keys, serverKey: server.publicKey)
            try push.connect(pull.lastEndpoint)
            pushes.append(push)
        }
        try pushes[0].send("from the stranger", dontWait: true)
        try pushes[1].send("from the admitted client")
        #expect(try pull.receiveMultipart() == [Array("from the admitted client".utf8)])
        for _ in 0..<1000 where seen.withLock({ $0.count }) < 2 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(Set(seen.withLock { $0 }) == [admitted.publicKey, stranger.publicKey])
        #expect(try pull.receiveMultipart(dontWait: true) == nil)
    }
}
