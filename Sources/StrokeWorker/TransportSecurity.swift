import Foundation
import StrokeRecognition
import ZeroMQ

/// CURVE encryption, and optionally client authentication, on the sockets a worker or proxy opens to the network.
///
/// Without it, ZeroMQ sends everything in the clear and admits any peer (the NULL mechanism), which is fine on
/// loopback and inside a trusted network only. With it, every connection handshakes with CURVE (Curve25519 keys,
/// encrypted and authenticated traffic): the server side proves it holds the secret key of the public key its
/// clients were given; with `authorizedClients`, clients must also hold one of the listed key pairs.
/// Internal inproc sockets (between lanes and forwarders) are never encrypted.
public struct TransportSecurity: Sendable, Hashable {
    /// Which side of the CURVE handshake this process takes, on every socket it opens to the network.
    public enum Role: Sendable, Hashable {
        /// Peers (producers, consumers, workers behind a proxy) connect as CURVE clients that know this process's
        /// public key. `authorizedClients`: the 32-byte public keys admitted, checked by a ZAP handler; `nil`
        /// admits any client that knows the public key.
        case server(authorizedClients: Set<[UInt8]>?)
        /// This process is a CURVE client of servers (proxies) whose public key is `serverKey` (Z85 text).
        case client(serverKey: String)
    }

    /// This process's own key pair.
    public var keys: ZMQCurveKeyPair
    /// The side of the handshake.
    public var role: Role
    /// The file the authorized client keys were read from, which `reloadAuthorizedClients()` reads again.
    public var authorizedKeysFile: String?

    /// Creates a security setting.
    public init(keys: ZMQCurveKeyPair, role: Role, authorizedKeysFile: String? = nil) {
        self.keys = keys
        self.role = role
        self.authorizedKeysFile = authorizedKeysFile
    }

    /// The ZAP domain of the sockets.
    static let domain = "stroke-worker"

    /// The admitted client keys, when this process is a server that checks them.
    public var authorizedClients: Set<[UInt8]>? {
        if case .server(let authorized) = role { return authorized }
        return nil
    }

    /// Makes `socket` a CURVE server or client; call before it binds or connects.
    public func apply(to socket: ZMQSocket) throws(ZMQError) {
        switch role {
        case .server: try socket.makeCurveServer(keys, domain: Self.domain)
        case .client(let serverKey): try socket.makeCurveClient(keys, serverKey: serverKey)
        }
    }

    /// Whether a handshake's client may connect: a CURVE client whose public key is in `authorized` (any, when
    /// nil).
    public static func decide(_ request: ZMQAuthenticator.Request, authorized: Set<[UInt8]>?)
        -> ZMQAuthenticator.Decision
    {
        guard request.mechanism == "CURVE", let key = request.credentials.first, key.count == 32 else {
            return .deny(reason: "\(request.mechanism) is not CURVE")
        }
        if let authorized, !authorized.contains(key) {
            return .deny(reason: "client key not authorized")
        }
        return .allow(userID: ZMQCurveKeyPair.encode(key))
    }

    // MARK: - Key files

    /// Reads the settings of the `--curve-…` options: nil when no secret key is given.
    ///
    /// - Parameters:
    ///   - secretKeyFile: a file holding this process's secret key.
    ///   - serverKey: a server's public key, as Z85 text or a file holding it (client role).
    ///   - authorizedKeysFile: a file of admitted client public keys (server role).
    ///   - flagPrefix: how the options are named in errors (`--curve-`).
    /// - Throws: `CommandLineArguments.Failure` naming the option, the file and the line that is wrong.
    public static func load(
        secretKeyFile: String?, serverKey: String?, authorizedKeysFile: String?, flagPrefix: String = "--curve-"
    ) throws(CommandLineArguments.Failure) -> TransportSecurity? {
        guard let secretKeyFile else {
            if serverKey != nil || authorizedKeysFile != nil {
                throw CommandLineArguments.Failure(
                    description: "\(flagPrefix)server-key and \(flagPrefix)authorized-keys need \(flagPrefix)secret-key"
                )
            }
            return nil
        }
        guard ZMQCurveKeyPair.isAvailable else {
            throw CommandLineArguments.Failure(description: "\(flagPrefix)secret-key: this libzmq has no CURVE support")
        }
        let secretOption = "\(flagPrefix)secret-key \(secretKeyFile)"
        let lines = try keyLines(secretKeyFile, option: secretOption, field: "secret-key")
        guard lines.count == 1, let keys = try? ZMQCurveKeyPair(secretKey: lines[0].key) else {
            throw CommandLineArguments.Failure(
                description: "\(secretOption): expected one 40-character Z85 secret key (stroke-tool keygen makes one)")
        }
        if let serverKey {
            guard authorizedKeysFile == nil else {
                throw CommandLineArguments.Failure(
                    description: "\(flagPrefix)authorized-keys is for a server; \(flagPrefix)server-key makes a client")
            }
            let option = "\(flagPrefix)server-key"
            let key =
                ZMQCurveKeyPair.decode(serverKey) != nil
                ? serverKey : try keyLines(serverKey, option: "\(option) \(serverKey)", field: "public-key").first?.key
            guard let key, ZMQCurveKeyPair.decode(key) != nil else {
                throw CommandLineArguments.Failure(
                    description: "\(option): expected a 40-character Z85 public key or a file holding one")
            }
            return TransportSecurity(keys: keys, role: .client(serverKey: key))
        }
        guard let authorizedKeysFile else {
            return TransportSecurity(keys: keys, role: .server(authorizedClients: nil))
        }
        let authorized = try readAuthorizedKeys(
            authorizedKeysFile, option: "\(flagPrefix)authorized-keys \(authorizedKeysFile)")
        return TransportSecurity(
            keys: keys, role: .server(authorizedClients: authorized), authorizedKeysFile: authorizedKeysFile)
    }

    /// The authorized client keys as `authorizedKeysFile` holds them now (after an edit: SIGHUP).
    ///
    /// - Throws: `CommandLineArguments.Failure` naming the file and the line that is wrong, or when there is no
    ///   such file to read.
    public func reloadAuthorizedClients() throws(CommandLineArguments.Failure) -> Set<[UInt8]> {
        guard let authorizedKeysFile else {
            throw CommandLineArguments.Failure(description: "no --curve-authorized-keys file to read again")
        }
        // A pipe (`<(vault read …)`) was read whole at the start: read again, it held no keys, and every client
        // was cut as revoked (or, a FIFO without a writer, the reload waited for good).
        if let kind = RecognitionError.nonRegularKind(of: authorizedKeysFile) {
            throw CommandLineArguments.Failure(
                description: "\(authorizedKeysFile) is \(kind), read at the start: a reload reads a regular file only")
        }
        return try Self.readAuthorizedKeys(authorizedKeysFile, option: authorizedKeysFile)
    }

    /// The public keys of an authorized keys file.
    static func readAuthorizedKeys(_ path: String, option: String) throws(CommandLineArguments.Failure)
        -> Set<[UInt8]>
    {
        var authorized = Set<[UInt8]>()
        for line in try keyLines(path, option: option, field: "public-key") {
            guard let key = ZMQCurveKeyPair.decode(line.key) else {
                throw CommandLineArguments.Failure(
                    description: "\(option), line \(line.number): not a 40-character Z85 public key")
            }
            authorized.insert(key)
        }
        return authorized
    }

    /// The keys of a key file with their line numbers: each line that is neither blank nor a `#` comment holds a
    /// key, either alone (40 Z85 characters) or as a ZeroMQ certificate's `field = "KEY"` (as pyzmq's
    /// `zmq.auth.create_certificates` and czmq write them; the certificate's other lines are skipped). Any other
    /// line is returned as it is, for the caller to report.
    static func keyLines(_ path: String, option: String, field: String) throws(CommandLineArguments.Failure)
        -> [(key: String, number: Int)]
    {
        let data: Data
        do {
            data = try RecognitionError.contents(ofFile: path, naming: "")
        } catch {
            throw CommandLineArguments.Failure(description: "\(option): \(error.message)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw CommandLineArguments.Failure(description: "\(option): not UTF-8 text")
        }
        var keys = [(key: String, number: Int)]()
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            // A bare key first: Z85 has `#` and `=` among its characters.
            if ZMQCurveKeyPair.decode(line) != nil {
                keys.append((line, index + 1))
                continue
            }
            if line.isEmpty || line.hasPrefix("#") || line == "curve" || line == "metadata" { continue }
            if let equals = line.firstIndex(of: "=") {
                let name = line[..<equals].trimmingCharacters(in: .whitespaces)
                if !name.isEmpty, name.allSatisfy({ $0.isLetter || $0 == "-" || $0 == "_" }) {
                    // A certificate's line: only the wanted field counts.
                    guard name == field else { continue }
                    let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
                    keys.append((value.trimmingCharacters(in: CharacterSet(charactersIn: "\"")), index + 1))
                    continue
                }
            }
            keys.append((line, index + 1))  // not a key: the caller names the line
        }
        return keys
    }
}
