#if canImport(Glibc)
    import Glibc
#endif

extension ZMQSocket {
    // MARK: - Checking endpoints

    /// Checks `endpoint` before it reaches `zmq_bind` (`binding`) or `zmq_connect`; throws an `.endpoint` error
    /// that says what is wrong where libzmq would refuse it with a bare `EINVAL`, or, worse, take it.
    ///
    /// libzmq 4.3 reads a TCP port with `strtoul` and keeps its low 16 bits: `tcp://127.0.0.1:99999` binds port
    /// 34463, `:-1` binds 65535 and `:5555x` binds 5555, and a connect to any of them is accepted and dials the
    /// same wrong port. Here a TCP port must be decimal digits in 1...65535, or `*` or `0` (any free port) to bind;
    /// in `tcp://SOURCE;HOST:PORT` the destination's. An endpoint without `TRANSPORT://` is refused with the forms
    /// that work. Other transports (`ipc://`, `inproc://`) are left to libzmq.
    public static func checkEndpoint(_ endpoint: String, binding: Bool) throws(ZMQError) {
        func refuse(_ problem: String) -> ZMQError {
            var error = ZMQError.failedEndpoint(endpoint, binding: binding, errno: EINVAL)
            error.message = problem
            return error
        }
        guard let separator = endpoint.firstRange(of: "://"), separator.lowerBound > endpoint.startIndex else {
            throw refuse("expected TRANSPORT://ADDRESS: tcp://HOST:PORT, ipc://PATH or inproc://NAME")
        }
        guard endpoint[..<separator.lowerBound] == "tcp" else { return }
        // A connect may name the address to connect from first: SOURCE;HOST:PORT.
        let address = endpoint[separator.upperBound...].split(separator: ";", omittingEmptySubsequences: false).last!
        guard let colon = address.lastIndex(of: ":"), !address[..<colon].isEmpty, !address.hasSuffix("]") else {
            throw refuse("expected tcp://HOST:PORT")
        }
        let port = address[address.index(after: colon)...]
        // libzmq fails such a connect with only "Invalid argument": the wildcard is a bound socket's.
        if !binding && address[..<colon] == "*" {
            throw refuse("* (every address) is for binding; a connect needs the host to reach, as 127.0.0.1")
        }
        if binding && port == "*" { return }
        let anyPort = binding ? " (or * or 0 to bind any free port)" : ""
        guard !port.isEmpty, port.allSatisfy({ $0.isASCII && $0.isNumber }),
            let number = Int(port), number <= 65535, binding || number > 0
        else {
            throw refuse("the port must be a number in 1...65535\(anyPort), got \"\(port)\"")
        }
    }
}
