import Testing
import ZeroMQ

@testable import StrokeWorker

@Suite("ProxyMetrics: what stroke-worker proxy --metrics answers")
struct ProxyMetricsTests {
    static func metrics() throws -> ProxyMetrics {
        let context = try ZMQContext()
        let watch = ConnectionWatch(
            context: context, addressPrefix: "inproc://proxy-metrics-test", logger: Logger(label: "test"),
            metrics: nil)
        return ProxyMetrics(connections: watch)
    }

    @Test("live and ready once the forwarding loop turned; neither before it, nor once stopping")
    func liveness() throws {
        let metrics = try Self.metrics()
        #expect(metrics.httpResponse("/healthz").status == "503 Service Unavailable")
        #expect(metrics.httpResponse("/readyz").body == "not forwarding\n")
        metrics.record(ZMQProxy.Counts())
        #expect(metrics.httpResponse("/healthz") == .init(status: "200 OK", body: "ok\n"))
        #expect(metrics.httpResponse("/readyz") == .init(status: "200 OK", body: "ok\n"))
        metrics.stop()
        #expect(metrics.httpResponse("/healthz").status == "503 Service Unavailable")
        #expect(metrics.httpResponse("/readyz").status == "503 Service Unavailable")
        #expect(metrics.httpResponse("/nothing").status == "404 Not Found")
    }

    @Test("the loop's counts by side and direction, the refused handshakes, and one HELP and TYPE per family")
    func exposition() throws {
        let metrics = try Self.metrics()
        var counts = ZMQProxy.Counts()
        counts.frontendIn.frames = 200
        counts.frontendIn.bytes = 4_600
        counts.backendOut.frames = 198
        counts.backendOut.bytes = 4_554
        counts.backendIn.frames = 3
        metrics.record(counts)
        metrics.authentication.handshakesRefused.add(2, ordering: .relaxed)
        let response = metrics.httpResponse("/metrics")
        #expect(response.status == "200 OK")
        #expect(response.contentType.hasPrefix("text/plain; version=0.0.4"))
        let lines = response.body.split(separator: "\n").map(String.init)
        #expect(lines.contains("stroke_proxy_frames_total{side=\"frontend\",direction=\"in\"} 200"))
        #expect(lines.contains("stroke_proxy_bytes_total{side=\"frontend\",direction=\"in\"} 4600"))
        #expect(lines.contains("stroke_proxy_frames_total{side=\"backend\",direction=\"out\"} 198"))
        #expect(lines.contains("stroke_proxy_frames_total{side=\"backend\",direction=\"in\"} 3"))
        #expect(lines.contains("stroke_proxy_connections{side=\"frontend\"} 0"))
        #expect(lines.contains("stroke_proxy_handshakes_refused_total 2"))
        #expect(lines.contains("stroke_proxy_up 1"))
        let types = lines.filter { $0.hasPrefix("# TYPE ") }.map { $0.split(separator: " ")[2] }
        #expect(types.count == Set(types).count, "a family declared once")
        #expect(lines.filter { $0.hasPrefix("# HELP ") }.count == types.count)
        for line in lines where !line.hasPrefix("#") {
            let name = String(line.prefix { $0 != "{" && $0 != " " })
            #expect(types.contains(Substring(name)), "\(name) declared")
        }
    }
}
