import Foundation
import ZeroMQ

#if canImport(Glibc)
    import Glibc
#endif

// MARK: - Two options that would listen on one address

extension WorkerConfiguration.Endpoint {
    /// Where a bound TCP endpoint listens: its host (brackets removed) and port; nil for a connected endpoint,
    /// another transport, or a port the system chooses (`*`, `0`), which never collides.
    var listeningTCPAddress: (host: String, port: Int)? {
        guard bind, address.hasPrefix("tcp://") else { return nil }
        let rest = address.dropFirst("tcp://".count)
        guard let colon = rest.lastIndex(of: ":"), let port = Int(rest[rest.index(after: colon)...]), port > 0 else {
            return nil
        }
        var host = String(rest[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return (host, port)
    }

    /// Whether `self` and `other` could not both be bound on one machine: the same `ipc://` path, or the same TCP
    /// port on the same host or where one listens on every address of the other's family (`*`, `0.0.0.0`, `::`).
    /// Hosts given as interface names (`tcp://lo:5555`) collide only when written alike.
    func listensOnSameAddress(as other: Self) -> Bool {
        guard bind, other.bind else { return false }
        if address.hasPrefix("ipc://") { return address == other.address }
        guard let mine = listeningTCPAddress, let theirs = other.listeningTCPAddress, mine.port == theirs.port else {
            return false
        }
        return mine.host == theirs.host || covers(theirs.host) || other.covers(mine.host)
    }

    /// Whether this endpoint's host is a wildcard whose listening socket takes `host`'s port too: `*` (IPv4, and
    /// IPv6 as well with `ipv6`), `0.0.0.0` (IPv4), `::` (both, as libzmq binds it dual-stack).
    private func covers(_ host: String) -> Bool {
        guard let family = Self.family(of: host) else { return false }
        switch listeningTCPAddress?.host {
        case "*": return family == AF_INET || ipv6
        case "0.0.0.0": return family == AF_INET
        case "::": return true
        default: return false
        }
    }

    /// `AF_INET` or `AF_INET6` for a numeric address or a wildcard, nil for an interface or host name.
    private static func family(of host: String) -> Int32? {
        host == "*" ? AF_INET : numericAddress(host)?.family
    }

    /// A numeric IPv4 or IPv6 address's family, and whether it is a loopback one (`127.0.0.0/8`, `::1`); nil for
    /// anything else.
    static func numericAddress(_ host: String) -> (family: Int32, loopback: Bool)? {
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 { return (AF_INET, UInt32(bigEndian: v4.s_addr) >> 24 == 127) }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, host, &v6) == 1 else { return nil }
        return (AF_INET6, withUnsafeBytes(of: v6) { $0.elementsEqual([UInt8](repeating: 0, count: 15) + [1]) })
    }
}

extension WorkerConfiguration {
    /// The first two of `endpoints` that would listen on the same address, said for a person (`--output
    /// bind:tcp://127.0.0.1:5555 listens where --input bind:tcp://127.0.0.1:5555 does; …`), or nil where each has
    /// an address of its own. Each endpoint comes with the option and value that name it. libzmq would fail the
    /// second bind with "Address already in use", which reads as another process holding the port.
    public static func sharedAddress(among endpoints: [(named: String, endpoint: Endpoint)]) -> String? {
        for (index, later) in endpoints.enumerated() {
            for earlier in endpoints[..<index] where later.endpoint.listensOnSameAddress(as: earlier.endpoint) {
                let remedy =
                    later.endpoint.address.hasPrefix("ipc://")
                    ? "another path" : "another port, or * for one the system chooses"
                return
                    "\(later.named) listens where \(earlier.named) does; each needs an address of its own (\(remedy))"
            }
        }
        return nil
    }

    /// An input that connects to this worker's own output, said for a person, or nil. Its events would come back as
    /// input, each answered with an error event that comes back in turn: a loop that never ends.
    ///
    /// Only what is surely this machine counts: the same `ipc://` path, the host an output is bound to written
    /// alike, or a loopback address (`127.0.0.1`, `::1`, `localhost`) under an output bound to every address. A
    /// worker that binds `tcp://*:5556` and connects its input to `tcp://10.0.0.5:5556`, a proxy's, is not refused.
    public static func inputFromOwnOutput(inputs: [Endpoint], outputs: [Endpoint]) -> String? {
        for input in inputs where !input.bind {
            let own = outputs.first { output in
                Self.loopbackForms(of: input).contains { asBound in
                    guard asBound.listensOnSameAddress(as: output) else { return false }
                    guard let host = asBound.listeningTCPAddress?.host else { return true }  // ipc://: the same path
                    return host == output.listeningTCPAddress?.host || Endpoint.numericAddress(host)?.loopback == true
                }
            }
            if let own {
                return "--input \(input) connects to this worker's own --output \(own), whose events would "
                    + "come back as input without end"
            }
        }
        return nil
    }

    /// A connected endpoint as if bound, to compare with bound ones: itself, and for the host `localhost` (which
    /// resolves to a loopback address without a name server) its two loopback addresses, `127.0.0.1` and `::1`.
    private static func loopbackForms(of input: Endpoint) -> [Endpoint] {
        var asBound = input
        asBound.bind = true
        guard let (host, port) = asBound.listeningTCPAddress, host.lowercased() == "localhost" else { return [asBound] }
        return ["127.0.0.1", "[::1]"].map { loopback in
            var form = asBound
            form.address = "tcp://\(loopback):\(port)"
            return form
        }
    }

    /// The input, output and metrics endpoints, each named by its option, for `sharedAddress(among:)`.
    var listeningEndpoints: [(named: String, endpoint: Endpoint)] {
        let endpoints = inputs.map { ("--input \($0)", $0) } + outputs.map { ("--output \($0)", $0) }
        return endpoints + (metricsAddress.flatMap(Self.metricsEndpoint).map { [$0] } ?? [])
    }

    /// `--metrics HOST:PORT` (the worker's or the proxy's) as the TCP endpoint it listens on, named by its
    /// option, for `sharedAddress(among:)`; nil where the address does not parse (refused elsewhere).
    public static func metricsEndpoint(_ address: String) -> (named: String, endpoint: Endpoint)? {
        guard let (host, port) = try? MetricsServer.parse(address) else { return nil }
        let bracketed = host.isEmpty ? "*" : host.contains(":") ? "[\(host)]" : host
        return ("--metrics \(address)", Endpoint(bind: true, address: "tcp://\(bracketed):\(port)"))
    }
}

// MARK: - An address the worker could not listen on

extension WorkerConfiguration {
    /// A bind of one of `endpoints` that failed, said with the option that names it and, for the usual causes, a way
    /// out (`--output bind:tcp://127.0.0.1:5556: another process listens on this address (another worker or proxy,
    /// or one still stopping?); …`), or nil for any other error or an address none of `endpoints` has. libzmq says
    /// only `zmq_bind(tcp://127.0.0.1:5556): Address already in use`, which names neither the option nor a way out.
    public static func bindFailure(_ error: any Error, among endpoints: [(named: String, endpoint: Endpoint)])
        -> String?
    {
        guard let error = error as? ZMQError, error.binding, let address = error.endpoint else { return nil }
        guard let named = endpoints.first(where: { $0.endpoint.bind && $0.endpoint.address == address })?.named else {
            return nil
        }
        let path = address.hasPrefix("ipc://") ? String(address.dropFirst("ipc://".count)) : nil
        let why = bindRemedy(errno: error.errno, ipcPath: path, anyPort: "*") ?? "cannot listen there"
        return "\(named): \(why) (\(error))"
    }

    /// What a bind that failed with `errno` means, with a way out, for the usual causes; nil for the others. For a
    /// TCP address unless `ipcPath` (an `ipc://` endpoint's path) is given; `anyPort` is the port that asks the
    /// system for a free one (`*` in an endpoint, `0` in `--metrics`).
    static func bindRemedy(errno: Int32, ipcPath: String?, anyPort: String) -> String? {
        switch errno {
        case EADDRINUSE:
            return "another process listens on this address (another worker or proxy, or one still stopping?); stop "
                + (ipcPath != nil
                    ? "it, or give another path"
                    : "it, or give another port (or \(anyPort) for one the system chooses)")
        case EADDRNOTAVAIL:
            return "no network interface of this machine has that address; give one it has, or * for every address"
        case ENOENT:
            guard let path = ipcPath else { return nil }
            let directory = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
            return
                "the directory \(directory.isEmpty ? "/" : directory) does not exist; create it, or give another path"
        case EACCES where ipcPath != nil:
            return "this user may not create the socket's file there; give a path in a directory it may write to"
        case EACCES:
            return "this user may not listen on that port (below 1024 without the CAP_NET_BIND_SERVICE capability); "
                + "give a port from 1024 on"
        default:
            return nil
        }
    }

    /// `bindFailure(_:among:)` for this worker's input and output endpoints.
    public func bindFailure(_ error: any Error) -> String? {
        Self.bindFailure(error, among: listeningEndpoints)
    }
}
