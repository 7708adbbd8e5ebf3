import Foundation
import Testing
import ZeroMQ

@testable import StrokeWorker

@Suite("Vetting connections after a revocation")
struct ConnectionVettingTests {
    @Test("each connection's key is looked up once per revocation, and a revoked one cut once, whatever its descriptor")
    func onceEach() throws {
        let server = try ZMQCurveKeyPair.generate()
        let kept = try ZMQCurveKeyPair.generate()
        let revoked = try ZMQCurveKeyPair.generate()
        let (directory, security) = try TransportSecurityTests.keyFiles(server: server, clients: [kept, revoked])
        defer { try? FileManager.default.removeItem(at: directory) }
        let metrics = WorkerMetrics()
        let authenticator = ClientAuthenticator(
            security: try #require(security), context: try ZMQContext(), logger: Logger(level: .error),
            metrics: metrics)
        var vetting = ConnectionVetting(authenticator: authenticator)
        var lookups = 0
        // Descriptors no test process has open (a cut is a shutdown(2) that fails), below and above the array's.
        let low = 60_000
        let high = ConnectionVetting.trackedDescriptors + 4_464
        #expect(vetting.admits(descriptor: low) { revoked.publicKey }, "no revocation yet: no lookup")

        try (kept.publicKey + "\n").write(
            to: directory.appendingPathComponent("clients.keys"), atomically: true, encoding: .utf8)
        #expect(authenticator.reload())
        vetting.refresh()
        for descriptor in [low, high] {
            for _ in 0..<3 {
                #expect(
                    vetting.admits(descriptor: descriptor) {
                        lookups += 1
                        return kept.publicKey
                    })
            }
        }
        #expect(lookups == 2)
        for descriptor in [low + 1, high + 1] {
            for _ in 0..<3 { #expect(!vetting.admits(descriptor: descriptor) { revoked.publicKey }) }
        }
        #expect(metrics.connectionsCut.load(ordering: .relaxed) == 2)
        #expect(metrics.messagesRevoked.load(ordering: .relaxed) == 6)
        #expect(vetting.admits(descriptor: -1) { revoked.publicKey }, "inproc: no descriptor, nothing to revoke")
    }
}
