import Testing

@testable import ZeroMQ

#if canImport(Glibc)
    import Glibc
#endif

@Suite("ZeroMQ endpoints checked before libzmq sees them")
struct ZMQEndpointCheckTests {
    /// The check's message for `endpoint`, or nil where it passes.
    static func refusal(_ endpoint: String, binding: Bool) -> String? {
        do {
            try ZMQSocket.checkEndpoint(endpoint, binding: binding)
            return nil
        } catch {
            #expect(error.code == .endpoint && error.endpoint == endpoint && error.binding == binding)
            #expect(error.description.hasPrefix("\(binding ? "zmq_bind" : "zmq_connect")(\(endpoint)): "))
            return error.message
        }
    }

    @Test("a TCP port libzmq would take modulo 65,536, or with junk after it, is refused with what is wrong")
    func tcpPorts() {
        for port in ["99999", "65536", "-1", "5555x", "+5555", " 5555", "4294972857", "", "0x15b3"] {
            for binding in [true, false] {
                let message = Self.refusal("tcp://127.0.0.1:\(port)", binding: binding)
                #expect(message?.contains("the port must be a number in 1...65535") == true, "port \"\(port)\"")
                #expect(message?.contains("\"\(port)\"") == true)
            }
        }
        // Any free port is a bind's choice; a connect to it reaches nothing.
        #expect(Self.refusal("tcp://127.0.0.1:0", binding: true) == nil)
        #expect(Self.refusal("tcp://127.0.0.1:*", binding: true) == nil)
        #expect(Self.refusal("tcp://127.0.0.1:0", binding: false) != nil)
        #expect(Self.refusal("tcp://127.0.0.1:*", binding: false) != nil)
    }

    @Test("well-formed endpoints pass: ports 1 to 65535, host names, IPv6, a source to connect from, other transports")
    func wellFormed() {
        for endpoint in [
            "tcp://127.0.0.1:1", "tcp://127.0.0.1:65535", "tcp://*:5555", "tcp://localhost:5555", "tcp://eth0:5555",
            "tcp://[::1]:5555", "tcp://[fe80::1%eth0]:*", "ipc:///tmp/stroke.sock", "inproc://lane-0",
        ] {
            #expect(Self.refusal(endpoint, binding: true) == nil, "\(endpoint)")
        }
        for endpoint in ["tcp://127.0.0.1:5555", "tcp://[::1]:5555", "tcp://127.0.0.1:0;10.0.0.2:5555"] {
            #expect(Self.refusal(endpoint, binding: false) == nil, "\(endpoint)")
        }
        // The wildcard host is a bind's: libzmq failed a connect to it with only "Invalid argument" (session 81).
        #expect(
            Self.refusal("tcp://*:5555", binding: false)
                == "* (every address) is for binding; a connect needs the host to reach, as 127.0.0.1")
        #expect(Self.refusal("tcp://127.0.0.1:0;*:5555", binding: false) != nil)
        // In SOURCE;HOST:PORT the destination's port is the one checked.
        #expect(Self.refusal("tcp://127.0.0.1:0;10.0.0.2:99999", binding: false) != nil)
    }

    @Test("an endpoint without a transport or without a port says which forms work")
    func shapes() {
        for endpoint in ["foo", "127.0.0.1:5555", "://x"] {
            #expect(Self.refusal(endpoint, binding: true)?.contains("expected TRANSPORT://ADDRESS") == true)
        }
        for endpoint in ["tcp://127.0.0.1", "tcp://[::1]", "tcp://:5555"] {
            #expect(Self.refusal(endpoint, binding: true) == "expected tcp://HOST:PORT", "\(endpoint)")
        }
    }

    @Test("a bound TCP endpoint that names a host, which libzmq 4.3.4 takes for a device, says what a bind takes")
    func boundHostNames() throws {
        let context = try ZMQContext()
        let socket = try ZMQSocket(context, .pub)
        // Before, "No such device (errno 19)" alone: libzmq 4.3.4 reads a bound host as an interface's name.
        let error = #expect(throws: ZMQError.self) { try socket.bind("tcp://no-such-host.invalid:0") }
        #expect(
            error?.errno != ENODEV || error?.message.contains("not a host name") == true, "\(String(describing: error))"
        )
        if ZMQContext.version == (4, 3, 4) { #expect(error?.errno == ENODEV) }
    }

    @Test("bind and connect refuse such an endpoint, where libzmq would have bound or dialled another port")
    func socketsRefuse() throws {
        let context = try ZMQContext()
        let socket = try ZMQSocket(context, .sub)
        #expect(throws: ZMQError.self) { try socket.bind("tcp://127.0.0.1:99999") }
        #expect(throws: ZMQError.self) { try socket.connect("tcp://127.0.0.1:99999") }
        // Nothing was bound: libzmq would have listened on 34463.
        #expect(socket.lastEndpoint == "")
        // A failure of libzmq's own names the endpoint and the call, as a refusal does.
        let other = try ZMQSocket(context, .pub)
        try other.bind("inproc://taken")
        let taken = #expect(throws: ZMQError.self) { try socket.bind("inproc://taken") }
        #expect(taken?.endpoint == "inproc://taken" && taken?.binding == true && taken?.code == .endpoint)
    }
}
