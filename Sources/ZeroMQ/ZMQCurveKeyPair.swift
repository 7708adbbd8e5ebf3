import CZeroMQ

/// A CURVE key pair (Curve25519) in Z85 text, the 40-character form libzmq's socket options and key files use.
///
/// A CURVE server needs its secret key; its clients need the server's public key and a key pair of their own.
/// The secret key never leaves the process that owns it.
public struct ZMQCurveKeyPair: Sendable, Hashable {
    /// The public key, 40 Z85 characters: given to peers.
    public let publicKey: String
    /// The secret key, 40 Z85 characters.
    public let secretKey: String

    /// Characters of a key in Z85 text.
    public static let textLength = 40

    /// Whether this libzmq was built with CURVE (`zmq_has("curve")`).
    public static var isAvailable: Bool { zmq_has("curve") != 0 }

    /// A new random key pair.
    ///
    /// - Throws: `ZMQError` (`ENOTSUP`) when libzmq was built without CURVE.
    public static func generate() throws(ZMQError) -> ZMQCurveKeyPair {
        var publicText = [CChar](repeating: 0, count: textLength + 1)
        var secretText = [CChar](repeating: 0, count: textLength + 1)
        guard zmq_curve_keypair(&publicText, &secretText) == 0 else { throw ZMQError.last("zmq_curve_keypair") }
        return ZMQCurveKeyPair(publicKey: Self.string(publicText), secretKey: Self.string(secretText))
    }

    /// The key pair of `secretKey`, its public key derived from it.
    ///
    /// - Throws: `ZMQError` with code `.invalidArgument` when `secretKey` is not a 40-character Z85 key.
    public init(secretKey: String) throws(ZMQError) {
        guard Self.decode(secretKey) != nil else {
            throw ZMQError(EINVAL, "CURVE secret key (\(secretKey.count) characters)", code: .invalidArgument)
        }
        var publicText = [CChar](repeating: 0, count: Self.textLength + 1)
        guard zmq_curve_public(&publicText, secretKey) == 0 else { throw ZMQError.last("zmq_curve_public") }
        self.init(publicKey: Self.string(publicText), secretKey: secretKey)
    }

    private init(publicKey: String, secretKey: String) {
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    /// The 32 bytes of a key in Z85 text, or nil when `text` is not 40 Z85 characters.
    public static func decode(_ text: String) -> [UInt8]? {
        guard text.utf8.count == textLength, text.utf8.allSatisfy(isZ85) else { return nil }
        var bytes = [UInt8](repeating: 0, count: 32)
        return zmq_z85_decode(&bytes, text) == nil ? nil : bytes
    }

    /// The Z85 text of a 32-byte key.
    public static func encode(_ key: [UInt8]) -> String {
        precondition(key.count == 32, "a CURVE key has 32 bytes, got \(key.count)")
        var text = [CChar](repeating: 0, count: textLength + 1)
        _ = zmq_z85_encode(&text, key, key.count)
        return string(text)
    }

    /// Whether `byte` is one of the 85 characters of Z85 (ZeroMQ RFC 32).
    private static func isZ85(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "A")...UInt8(ascii: "Z"):
            return true
        default:
            return Array(".-:+=^!/*?&<>()[]{}@%$#".utf8).contains(byte)
        }
    }

    private static func string(_ text: [CChar]) -> String {
        String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
