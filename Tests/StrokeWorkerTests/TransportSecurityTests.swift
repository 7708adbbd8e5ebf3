import Foundation
import Synchronization
import Testing
import ZeroMQ

@testable import StrokeWorker

@Suite("CURVE transport security", .serialized)
struct TransportSecurityTests {
    /// A fresh directory for key files, removed after `body`.
    static func withDirectory<T>(_ body: (URL) throws -> T) throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try body(directory)
    }

    static func write(_ text: String, _ name: String, in directory: URL) throws -> String {
        let url = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    /// A fresh directory (the caller removes it) holding the server's secret key as `server.key` and the clients'
    /// public keys as `clients.keys`, and the security those files configure.
    static func keyFiles(server: ZMQCurveKeyPair, clients: [ZMQCurveKeyPair]) throws
        -> (directory: URL, security: TransportSecurity?)
    {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let secretFile = try write(server.secretKey + "\n", "server.key", in: directory)
        let keysFile = try write(clients.map { $0.publicKey + "\n" }.joined(), "clients.keys", in: directory)
        let security = try TransportSecurity.load(
            secretKeyFile: secretFile, serverKey: nil, authorizedKeysFile: keysFile)
        return (directory, security)
    }

    // MARK: - Over real sockets

    @Test("an authorized CURVE client gets its match; an unlisted key is refused and counted", arguments: [1, 2])
    func authorizedAndRefused(lanes: Int) async throws {
        let server = try ZMQCurveKeyPair.generate()
        let admitted = try ZMQCurveKeyPair.generate()
        let stranger = try ZMQCurveKeyPair.generate()
        let admittedKey = try #require(ZMQCurveKeyPair.decode(admitted.publicKey))
        let messages = try WorkerIntegrationTests.checkMessages()
        try await withWorker({
            $0.lanes = lanes
            $0.logLevel = .error
            $0.security = TransportSecurity(keys: server, role: .server(authorizedClients: [admittedKey]))
        }) { input, output, worker in
            let events = try await withClient(input: input, output: output, curve: (admitted, server.publicKey)) {
                client in
                for message in messages { try client.send(session: "curve-1", message) }
                return try client.events(2).map { $0.event["event"] as! String }
            }
            #expect(events == ["checkmark", "match"])
            #expect(worker.metrics.handshakesRefused.load(ordering: .relaxed) == 0)
            // A client with a key the worker does not list: both its sockets are refused at the handshake, so its
            // producer never sees a subscription.
            let subscribed = try await onThread { () -> Bool in
                let context = try ZMQContext()
                let producer = try ZMQSocket(context, .xpub)
                let consumer = try ZMQSocket(context, .sub)
                for socket in [producer, consumer] {
                    try socket.setLinger(milliseconds: 0)
                    try socket.makeCurveClient(stranger, serverKey: server.publicKey)
                }
                try consumer.subscribe("")
                try consumer.connect(output)
                try producer.connect(input)
                for _ in 0..<1000 where worker.metrics.handshakesRefused.load(ordering: .relaxed) < 2 {
                    Thread.sleep(forTimeInterval: 0.01)
                }
                return try producer.receiveMultipart(dontWait: true) != nil
            }
            #expect(worker.metrics.handshakesRefused.load(ordering: .relaxed) == 2)
            #expect(!subscribed)
        }
    }

    @Test("a reload admits the keys the file lists now; a bad file changes nothing")
    func reload() async throws {
        let first = try ZMQCurveKeyPair.generate()
        let second = try ZMQCurveKeyPair.generate()
        let server = try ZMQCurveKeyPair.generate()
        let (directory, security) = try Self.keyFiles(server: server, clients: [first])
        defer { try? FileManager.default.removeItem(at: directory) }
        let messages = try WorkerIntegrationTests.checkMessages()
        try await withWorker({
            $0.security = security
            $0.logLevel = .error
        }) { input, output, worker in
            // Not listed yet: both of the second client's sockets are refused.
            try await onThread {
                let context = try ZMQContext()
                let sockets = [try ZMQSocket(context, .xpub), try ZMQSocket(context, .sub)]
                for socket in sockets {
                    try socket.setLinger(milliseconds: 0)
                    try socket.makeCurveClient(second, serverKey: server.publicKey)
                }
                try sockets[0].connect(input)
                try sockets[1].connect(output)
                for _ in 0..<1000 where worker.metrics.handshakesRefused.load(ordering: .relaxed) < 2 {
                    Thread.sleep(forTimeInterval: 0.01)
                }
            }
            #expect(worker.metrics.handshakesRefused.load(ordering: .relaxed) == 2)
            _ = try Self.write("\(first.publicKey)\nnot a key\n", "clients.keys", in: directory)
            #expect(!worker.reloadAuthorizedKeys())
            #expect(worker.authenticator?.authorizedCount == 1)
            _ = try Self.write("\(first.publicKey)\n\(second.publicKey)\n", "clients.keys", in: directory)
            #expect(worker.reloadAuthorizedKeys())
            #expect(worker.authenticator?.authorizedCount == 2)
            let events = try await withClient(input: input, output: output, curve: (second, server.publicKey)) {
                client in
                for message in messages { try client.send(session: "reloaded-1", message) }
                return try client.events(2).map { $0.event["event"] as! String }
            }
            #expect(events == ["checkmark", "match"])
        }
    }

    @Test(
        "a reload that revokes a key cuts its producers' connections (lane or proxy); other clients keep theirs",
        arguments: [1, 2])
    func revocationCutsConnections(lanes: Int) async throws {
        let revoked = try ZMQCurveKeyPair.generate()
        let kept = try ZMQCurveKeyPair.generate()
        let server = try ZMQCurveKeyPair.generate()
        let (directory, security) = try Self.keyFiles(server: server, clients: [revoked, kept])
        defer { try? FileManager.default.removeItem(at: directory) }
        let messages = try WorkerIntegrationTests.checkMessages()
        try await withWorker({
            $0.lanes = lanes
            $0.security = security
            $0.logLevel = .error
        }) { input, output, worker in
            let metrics = worker.metrics
            let (before, after, topics) = try await onThread { () -> ([String], [String], [String]) in
                let context = try ZMQContext()
                let leaving = try TestClient(
                    context: context, input: input, output: output, curve: (revoked, server.publicKey))
                let staying = try TestClient(
                    context: context, input: input, output: output, curve: (kept, server.publicKey))
                // Both keys are listed: the first client's stroke is answered.
                for message in messages { try leaving.send(session: "revoked-1", message) }
                let before = try leaving.events(2).map { $0.event["event"] as! String }
                _ = try staying.events(2)
                // Its key leaves the file: its next stroke is dropped and its connection cut...
                _ = try Self.write(kept.publicKey + "\n", "clients.keys", in: directory)
                guard worker.reloadAuthorizedKeys() else { throw TestFailure("the reload failed") }
                for message in messages { try leaving.send(session: "revoked-2", message) }
                // (Its consumer's connection is cut too: `consumersOfARevokedKeyAreCut`.)
                for _ in 0..<1000 where metrics.connectionsCut.load(ordering: .relaxed) < 2 {
                    Thread.sleep(forTimeInterval: 0.01)
                }
                // ...and when its producer connects again, the handshake refuses it.
                for _ in 0..<1000 where metrics.handshakesRefused.load(ordering: .relaxed) == 0 {
                    Thread.sleep(forTimeInterval: 0.01)
                }
                // The other client's stroke is answered, with nothing of the revoked session before it.
                for message in messages { try staying.send(session: "kept-1", message) }
                let received = try staying.events(2)
                return (before, received.map { $0.event["event"] as! String }, received.map(\.topic))
            }
            #expect(before == ["checkmark", "match"])
            #expect(after == ["checkmark", "match"])
            #expect(topics.allSatisfy { $0 == "kept-1" })
            #expect(metrics.connectionsCut.load(ordering: .relaxed) == 2, "its producer's and its consumer's")
            #expect(metrics.messagesRevoked.load(ordering: .relaxed) >= 1)
            #expect(metrics.handshakesRefused.load(ordering: .relaxed) >= 1)
        }
    }

    @Test("behind CURVE proxies: the worker connects to both as a client, and a listed client's stroke is answered")
    func behindProxies() async throws {
        let proxyKeys = try ZMQCurveKeyPair.generate()
        let workerKeys = try ZMQCurveKeyPair.generate()
        let clientKeys = try ZMQCurveKeyPair.generate()
        let listed = Set([workerKeys.publicKey, clientKeys.publicKey].map { ZMQCurveKeyPair.decode($0)! })
        let proxySecurity = TransportSecurity(keys: proxyKeys, role: .server(authorizedClients: listed))
        let context = try ZMQContext()
        let logger = Logger(level: .error, label: "test-proxy")
        let authenticator = ClientAuthenticator(
            security: proxySecurity, context: context, logger: logger, metrics: nil)
        let stop = ProxySignals()
        let any = WorkerConfiguration.Endpoint(bind: true, address: "tcp://127.0.0.1:*")
        try await withThrowingDiscardingTaskGroup { group in
            await authenticator.start(in: &group, threadName: "test-zap", stopped: stop.isSet)
            for name in ["input", "results"] {
                let forwarder = Forwarder(
                    frontend: [any], backend: [any], controlEndpoint: "inproc://test-\(name)-control",
                    frontendSecurity: proxySecurity, backendSecurity: proxySecurity)
                group.addTask {
                    try await ThreadRunner.run(name: "test-\(name)") {
                        try forwarder.run(context: context) { frontend, backend in
                            stop.endpoints.withLock { $0[name] = (frontend[0], backend[0]) }
                        }
                    }
                }
            }
            while stop.endpoints.withLock({ $0.count }) < 2 { try await Task.sleep(for: .milliseconds(1)) }
            let (input, results) = stop.endpoints.withLock { ($0["input"]!, $0["results"]!) }
            defer {
                for name in ["input", "results"] {
                    try? Forwarder.send(.terminate, to: "inproc://test-\(name)-control", context: context)
                }
                stop.set()
            }
            let messages = try WorkerIntegrationTests.checkMessages()
            try await withWorker({
                $0.inputs = [.init(bind: false, address: input.backend)]
                $0.outputs = [.init(bind: false, address: results.frontend)]
                $0.security = TransportSecurity(keys: workerKeys, role: .client(serverKey: proxyKeys.publicKey))
            }) { _, _, _ in
                let events = try await withClient(
                    input: input.frontend, output: results.backend, curve: (clientKeys, proxyKeys.publicKey)
                ) { client in
                    for message in messages { try client.send(session: "proxied-1", message) }
                    return try client.events(2).map { $0.event["event"] as! String }
                }
                #expect(events == ["checkmark", "match"])
            }
        }
    }

    /// What the test shares with its proxy threads: the ZAP handler's stop flag and the forwarders' bound
    /// endpoints.
    final class ProxySignals: Sendable {
        let endpoints = Mutex<[String: (frontend: String, backend: String)]>([:])
        private let stopped = Atomic<Bool>(false)
        func set() { stopped.store(true, ordering: .releasing) }
        @Sendable func isSet() -> Bool { stopped.load(ordering: .acquiring) }
    }

    // MARK: - Key files and options

    @Test("an authorized keys file that became a pipe is not read again: the keys read at the start stay")
    func reloadFromAPipe() throws {
        let client = try ZMQCurveKeyPair.generate()
        let (directory, loaded) = try Self.keyFiles(server: try ZMQCurveKeyPair.generate(), clients: [client])
        defer { try? FileManager.default.removeItem(at: directory) }
        let security = try #require(loaded)
        let keysFile = directory.appendingPathComponent("clients.keys").path
        #expect(try security.reloadAuthorizedClients() == [ZMQCurveKeyPair.decode(client.publicKey)!])
        // A FIFO without a writer in its place, as `<(…)` gives: read, it would block, or hold no keys at all.
        try FileManager.default.removeItem(atPath: keysFile)
        #expect(mkfifo(keysFile, 0o600) == 0)
        #expect {
            _ = try security.reloadAuthorizedClients()
        } throws: { error in
            "\(error)".contains("\(keysFile) is a pipe, read at the start: a reload reads a regular file only")
        }
    }

    @Test("key files: bare keys, certificates and comments; the public key is derived from the secret one")
    func keyFiles() throws {
        let server = try ZMQCurveKeyPair.generate()
        let first = try ZMQCurveKeyPair.generate()
        let second = try ZMQCurveKeyPair.generate()
        try Self.withDirectory { directory in
            let certificate = try Self.write(
                "#   ZeroMQ CURVE **Secret** Certificate\nmetadata\ncurve\n    public-key = \"\(server.publicKey)\"\n"
                    + "    secret-key = \"\(server.secretKey)\"\n", "server.key", in: directory)
            let authorized = try Self.write(
                "# players\n\(first.publicKey)\n\n  \(second.publicKey)  \n", "authorized", in: directory)
            let security = try #require(
                try TransportSecurity.load(secretKeyFile: certificate, serverKey: nil, authorizedKeysFile: authorized))
            #expect(security.keys == server)
            #expect(
                security.authorizedClients
                    == [first.publicKey, second.publicKey].map { ZMQCurveKeyPair.decode($0)! }.reduce(into: []) {
                        $0.insert($1)
                    })
            let bare = try Self.write("\(first.secretKey)\n", "client.key", in: directory)
            let publicFile = try Self.write("# the server\n\(server.publicKey)\n", "server.pub", in: directory)
            for serverKey in [server.publicKey, publicFile] {
                let client = try #require(
                    try TransportSecurity.load(secretKeyFile: bare, serverKey: serverKey, authorizedKeysFile: nil))
                #expect(client.keys == first)
                #expect(client.role == .client(serverKey: server.publicKey))
            }
            #expect(try TransportSecurity.load(secretKeyFile: nil, serverKey: nil, authorizedKeysFile: nil) == nil)
        }
    }

    @Test("bad key files and options are refused with the option, the file and the line")
    func keyFileErrors() throws {
        let keys = try ZMQCurveKeyPair.generate()
        try Self.withDirectory { directory in
            let secret = try Self.write(keys.secretKey + "\n", "secret", in: directory)
            let shortKey = try Self.write(String(keys.secretKey.dropLast()) + "\n", "short", in: directory)
            let twoKeys = try Self.write(keys.secretKey + "\n" + keys.secretKey + "\n", "two", in: directory)
            let badLine = try Self.write("# ok\n\(keys.publicKey)\nnot a key\n", "authorized", in: directory)
            let missing = directory.appendingPathComponent("missing").path
            let cases: [(String?, String?, String?, String)] = [
                (missing, nil, nil, "--curve-secret-key \(missing): cannot read"),
                (shortKey, nil, nil, "--curve-secret-key \(shortKey): expected one 40-character Z85 secret key"),
                (twoKeys, nil, nil, "--curve-secret-key \(twoKeys): expected one"),
                (secret, nil, badLine, "--curve-authorized-keys \(badLine), line 3: not a 40-character Z85"),
                (secret, "not-a-key", nil, "--curve-server-key not-a-key: cannot read"),
                (secret, keys.publicKey, badLine, "--curve-authorized-keys is for a server"),
                (nil, keys.publicKey, nil, "need --curve-secret-key"),
            ]
            for (secretKeyFile, serverKey, authorizedKeysFile, expected) in cases {
                let failure = #expect(throws: CommandLineArguments.Failure.self) {
                    try TransportSecurity.load(
                        secretKeyFile: secretKeyFile, serverKey: serverKey, authorizedKeysFile: authorizedKeysFile)
                }
                #expect(failure?.description.contains(expected) == true, "\(failure?.description ?? "")")
            }
        }
    }

    @Test("the --curve options and their environment variables configure the worker")
    func commandLine() throws {
        let keys = try ZMQCurveKeyPair.generate()
        try Self.withDirectory { directory in
            let secret = try Self.write(keys.secretKey + "\n", "secret", in: directory)
            let authorized = try Self.write(keys.publicKey + "\n", "authorized", in: directory)
            let fromFlags = try WorkerConfiguration(
                arguments: ["--curve-secret-key", secret, "--curve-authorized-keys", authorized], environment: [:])
            #expect(fromFlags.security?.keys == keys)
            #expect(fromFlags.security?.authorizedClients?.count == 1)
            let fromEnvironment = try WorkerConfiguration(
                arguments: [],
                environment: [
                    "STROKE_WORKER_CURVE_SECRET_KEY": secret, "STROKE_WORKER_CURVE_SERVER_KEY": keys.publicKey,
                ])
            #expect(fromEnvironment.security?.role == .client(serverKey: keys.publicKey))
            #expect(try WorkerConfiguration(arguments: [], environment: [:]).security == nil)
            #expect(WorkerConfiguration.help.contains("--curve-authorized-keys FILE"))
        }
    }
}
