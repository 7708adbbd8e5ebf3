import Foundation
import Testing
import ZeroMQ

@testable import StrokeWorker

@Suite("Cutting the consumers of a revoked key")
struct SubscriberVettingTests {
    /// Who owns the worker's output socket; `laneOverIPC`: the lane, with the output on an `ipc://` endpoint (a Unix
    /// socket's descriptor and inode, not a TCP one's).
    enum Owner: String, CaseIterable, Sendable {
        case lane, publisherThread, outputForwarder, laneOverIPC
    }

    @Test(
        "a reload that revokes a key cuts its consumers' connections at once, and refuses their return; others stay",
        arguments: Owner.allCases)
    func consumersOfARevokedKeyAreCut(owner: Owner) async throws {
        let revoked = try ZMQCurveKeyPair.generate()
        let kept = try ZMQCurveKeyPair.generate()
        let server = try ZMQCurveKeyPair.generate()
        let (directory, security) = try TransportSecurityTests.keyFiles(server: server, clients: [revoked, kept])
        defer { try? FileManager.default.removeItem(at: directory) }
        let messages = try WorkerIntegrationTests.checkMessages()
        try await withWorker({
            $0.lanes = owner == .outputForwarder ? 2 : 1
            $0.recognitionThread = owner == .publisherThread
            $0.security = security
            $0.logLevel = .error
            if owner == .laneOverIPC {
                $0.outputs = [.init(bind: true, address: "ipc://\(directory.path)/output")]
            }
        }) { input, output, worker in
            let metrics = worker.metrics
            let (before, after, afterTopics, leftovers) = try await onThread {
                () -> ([String], [String], [String], [String]) in
                let context = try ZMQContext()
                let leaving = try TestClient(
                    context: context, input: input, output: output, curve: (revoked, server.publicKey))
                let staying = try TestClient(
                    context: context, input: input, output: output, curve: (kept, server.publicKey))
                // Both keys are listed: both consumers receive the stroke's events.
                for message in messages { try staying.send(session: "kept-1", message) }
                let before = try leaving.events(2).map { $0.topic }
                _ = try staying.events(2)
                // The consumer's key leaves the file. Its client sends nothing more, yet its connection is cut...
                _ = try TransportSecurityTests.write(kept.publicKey + "\n", "clients.keys", in: directory)
                guard worker.reloadAuthorizedKeys() else { throw TestFailure("the reload failed") }
                for _ in 0..<1000 where metrics.connectionsCut.load(ordering: .relaxed) == 0 {
                    Thread.sleep(forTimeInterval: 0.01)
                }
                // ...and when it connects again, the handshake refuses it.
                for _ in 0..<1000 where metrics.handshakesRefused.load(ordering: .relaxed) == 0 {
                    Thread.sleep(forTimeInterval: 0.01)
                }
                // The other consumer receives the next stroke's events; the cut one receives none of them.
                for message in messages { try staying.send(session: "kept-2", message) }
                let after = try staying.events(2)
                try leaving.consumer.setTimeouts(receive: 500)
                var leftovers: [String] = []
                while let frames = try leaving.consumer.receiveMultipart() {
                    leftovers.append(String(decoding: frames[0], as: UTF8.self))
                }
                return (before, after.map { $0.event["event"] as! String }, after.map(\.topic), leftovers)
            }
            #expect(before == ["kept-1", "kept-1"])
            #expect(after == ["checkmark", "match"])
            #expect(afterTopics == ["kept-2", "kept-2"])
            #expect(leftovers.isEmpty, "the revoked consumer received \(leftovers)")
            #expect(metrics.connectionsCut.load(ordering: .relaxed) == 1)
            #expect(metrics.handshakesRefused.load(ordering: .relaxed) >= 1)
        }
    }
}
