/// A ZAP handler (ZeroMQ RFC 27): the one place a context asks whether a peer may connect.
///
/// libzmq sends every security handshake of a socket that has a ZAP domain (a CURVE server always does) as a
/// request to `inproc://zeromq.zap.01` in the socket's context, and admits the peer only on a `200` reply. The
/// handler owns a REP socket bound there and answers on the thread that calls `run`; bind it before any socket
/// that relies on it accepts connections. One handler per context.
public enum ZMQAuthenticator {
    /// The endpoint libzmq sends ZAP requests to.
    public static let endpoint = "inproc://zeromq.zap.01"

    /// A peer's handshake, as libzmq describes it.
    public struct Request: Sendable, Hashable {
        /// The socket's ZAP domain.
        public var domain: String
        /// The peer's IP address (empty over ipc).
        public var address: String
        /// `NULL`, `PLAIN` or `CURVE`.
        public var mechanism: String
        /// The mechanism's credentials: for CURVE, one frame with the client's 32-byte public key.
        public var credentials: [[UInt8]]

        /// Creates a request.
        public init(domain: String, address: String, mechanism: String, credentials: [[UInt8]]) {
            self.domain = domain
            self.address = address
            self.mechanism = mechanism
            self.credentials = credentials
        }
    }

    /// The answer to a request.
    public enum Decision: Sendable, Hashable {
        /// Admit the peer; `userID` becomes the connection's `User-Id` property.
        case allow(userID: String)
        /// Refuse the peer (libzmq closes the connection); `reason` is the status text.
        case deny(reason: String)
    }

    /// Binds the handler, calls `ready`, then answers requests with `decide` until `stopped()` is true (checked
    /// every `checkMilliseconds`) or the context shuts down. A malformed request gets a `500` reply.
    public static func run(
        context: ZMQContext, checkMilliseconds: Int = 100, ready: () -> Void, stopped: () -> Bool,
        decide: (Request) -> Decision
    ) throws(ZMQError) {
        let socket = try ZMQSocket(context, .rep)
        try socket.setLinger(milliseconds: 0)
        try socket.bind(endpoint)
        ready()
        var poller = ZMQPoller(readable: [socket])
        do {
            while !stopped() {
                guard try poller.poll(timeoutMilliseconds: checkMilliseconds) > 0,
                    let frames = try socket.receiveMultipart(dontWait: true)
                else { continue }
                try socket.sendMultipart(reply(to: frames, decide: decide))
            }
        } catch  where error.code == .terminated {
            return
        }
    }

    /// The reply frames to one request's frames.
    static func reply(to frames: [[UInt8]], decide: (Request) -> Decision) -> [[UInt8]] {
        let version = Array("1.0".utf8)
        let requestID = frames.count > 1 ? frames[1] : []
        guard frames.count >= 6, frames[0] == version else {
            return [version, requestID, Array("500".utf8), Array("malformed ZAP request".utf8), [], []]
        }
        let text = { (index: Int) in String(decoding: frames[index], as: UTF8.self) }
        let request = Request(
            domain: text(2), address: text(3), mechanism: text(5), credentials: Array(frames.dropFirst(6)))
        switch decide(request) {
        case .allow(let userID):
            return [version, requestID, Array("200".utf8), Array("OK".utf8), Array(userID.utf8), []]
        case .deny(let reason):
            return [version, requestID, Array("400".utf8), Array(reason.utf8), [], []]
        }
    }
}
