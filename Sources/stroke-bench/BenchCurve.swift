import Foundation
import ZeroMQ

/// The keys of a throughput run with CURVE (`--curve`): the receiving side (the raw sink, the worker) is the
/// server, the producer and the result counter are clients, as a deployment with encryption would have them.
struct BenchCurve: Sendable {
    let server: ZMQCurveKeyPair
    let client: ZMQCurveKeyPair
    /// The server's secret key in a file of its own, for the worker's `--curve-secret-key`.
    let secretKeyFile: String

    /// New keys, the server's secret written to a temporary file (mode 0600) that `remove()` deletes.
    static func make() throws -> BenchCurve {
        let server = try ZMQCurveKeyPair.generate()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("stroke-bench-\(getpid()).key").path
        guard
            FileManager.default.createFile(
                atPath: path, contents: Data((server.secretKey + "\n").utf8), attributes: [.posixPermissions: 0o600])
        else { throw BenchError("cannot write \(path)") }
        return BenchCurve(server: server, client: try ZMQCurveKeyPair.generate(), secretKeyFile: path)
    }

    /// Deletes the key file.
    func remove() { try? FileManager.default.removeItem(atPath: secretKeyFile) }

    /// Makes `socket` a client of the server.
    func client(_ socket: ZMQSocket) throws { try socket.makeCurveClient(client, serverKey: server.publicKey) }
}
