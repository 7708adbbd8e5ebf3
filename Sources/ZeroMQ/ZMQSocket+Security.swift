import CZeroMQ

extension ZMQSocket {
    // MARK: - CURVE

    /// Makes the socket a CURVE server with `keys`: every peer, on every endpoint it binds or connects, must
    /// handshake as a CURVE client that knows `keys.publicKey`; traffic is encrypted. Set before binding or
    /// connecting.
    ///
    /// Which clients are admitted is the ZAP handler's decision (`ZMQAuthenticator`) when one runs on the
    /// socket's context; without one, any client that knows the public key is.
    public func makeCurveServer(_ keys: ZMQCurveKeyPair, domain: String = "global") throws(ZMQError) {
        try setOption(ZMQ_CURVE_SERVER, 1, name: "ZMQ_CURVE_SERVER")
        try setOption(ZMQ_CURVE_SECRETKEY, bytes: Array(keys.secretKey.utf8), name: "ZMQ_CURVE_SECRETKEY")
        try setOption(ZMQ_ZAP_DOMAIN, bytes: Array(domain.utf8), name: "ZMQ_ZAP_DOMAIN")
    }

    /// Makes the socket a CURVE client with its own `keys`, of a server whose public key is `serverKey` (Z85).
    /// Set before connecting or binding.
    public func makeCurveClient(_ keys: ZMQCurveKeyPair, serverKey: String) throws(ZMQError) {
        guard ZMQCurveKeyPair.decode(serverKey) != nil else {
            throw ZMQError(EINVAL, "CURVE server key (\(serverKey.count) characters)", code: .invalidArgument)
        }
        try setOption(ZMQ_CURVE_SERVERKEY, bytes: Array(serverKey.utf8), name: "ZMQ_CURVE_SERVERKEY")
        try setOption(ZMQ_CURVE_PUBLICKEY, bytes: Array(keys.publicKey.utf8), name: "ZMQ_CURVE_PUBLICKEY")
        try setOption(ZMQ_CURVE_SECRETKEY, bytes: Array(keys.secretKey.utf8), name: "ZMQ_CURVE_SECRETKEY")
    }
}
