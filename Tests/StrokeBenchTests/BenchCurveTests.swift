import Foundation
import Testing
import ZeroMQ

@testable import stroke_bench

/// `--curve`: the benchmark's producer and result counter speak CURVE to a server with the run's keys.
@Suite("stroke-bench over CURVE")
struct BenchCurveTests {
    @Test(
        "the producer reaches a CURVE server with the run's keys and all its traffic arrives; the key file is private")
    func producerOverCurve() async throws {
        let curve = try BenchCurve.make()
        defer { curve.remove() }
        let attributes = try FileManager.default.attributesOfItem(atPath: curve.secretKeyFile)
        #expect(attributes[.posixPermissions] as? Int == 0o600)
        #expect(
            try String(contentsOfFile: curve.secretKeyFile, encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines) == curve.server.secretKey)
        let context = try ZMQContext()
        let traffic = Traffic.make(
            strokes: Traffic.strokes(dataset: nil), sessions: 4, pointsPerMessage: 32, encoding: .binary,
            messages: 500, prefix: "curve-")
        let sink = SubscriberCounter()
        async let received = sink.run(context: context, count: traffic.count) { try $0.makeCurveServer(curve.server) }
        let endpoint = try await sink.endpoint()
        try await onThread {
            let producer = try BenchProducer(context: context, endpoint: endpoint, curve: curve)
            try producer.sendAll(traffic)
        }
        #expect(try await received == traffic.count)
    }
}
