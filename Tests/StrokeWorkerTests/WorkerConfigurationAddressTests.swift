import Foundation
import StrokeRecognition
import Testing
import ZeroMQ

@testable import StrokeWorker

@Suite("Two options that would listen on one address")
struct WorkerConfigurationAddressTests {
    typealias Endpoint = WorkerConfiguration.Endpoint

    /// Whether `first` and `second` collide, asked both ways round (the answer must not depend on the order).
    static func collide(_ first: String, _ second: String, ipv6: Bool = false) -> Bool {
        var a = Endpoint(parsing: first)
        var b = Endpoint(parsing: second)
        a.ipv6 = ipv6
        b.ipv6 = ipv6
        let forth = a.listensOnSameAddress(as: b)
        #expect(forth == b.listensOnSameAddress(as: a), "\(first) \(second)")
        return forth
    }

    @Test("the same port on the same host, or under a wildcard of its family, collides; a chosen port never does")
    func collisions() {
        #expect(Self.collide("tcp://127.0.0.1:5555", "tcp://127.0.0.1:5555"))
        #expect(Self.collide("tcp://*:5555", "tcp://127.0.0.1:5555"))
        #expect(Self.collide("tcp://0.0.0.0:5555", "tcp://10.1.2.3:5555"))
        #expect(Self.collide("tcp://[::]:5555", "tcp://127.0.0.1:5555"))
        #expect(Self.collide("tcp://[::]:5555", "tcp://[::1]:5555"))
        #expect(Self.collide("tcp://*:5555", "tcp://[::1]:5555", ipv6: true))
        #expect(Self.collide("tcp://lo:5555", "tcp://lo:5555"))
        #expect(Self.collide("ipc:///tmp/worker", "ipc:///tmp/worker"))
        // Another port, another address of one family, another family, a port the system chooses, a connect.
        #expect(!Self.collide("tcp://127.0.0.1:5555", "tcp://127.0.0.1:5556"))
        #expect(!Self.collide("tcp://127.0.0.1:5555", "tcp://127.0.0.2:5555"))
        #expect(!Self.collide("tcp://[::1]:5555", "tcp://127.0.0.1:5555"))
        #expect(!Self.collide("tcp://*:5555", "tcp://[::1]:5555"))
        #expect(!Self.collide("tcp://0.0.0.0:5555", "tcp://[::1]:5555"))
        #expect(!Self.collide("tcp://127.0.0.1:*", "tcp://127.0.0.1:*"))
        #expect(!Self.collide("tcp://127.0.0.1:0", "tcp://127.0.0.1:0"))
        #expect(!Self.collide("connect:tcp://127.0.0.1:5555", "tcp://127.0.0.1:5555"))
        #expect(!Self.collide("ipc:///tmp/a", "ipc:///tmp/b"))
        #expect(!Self.collide("tcp://lo:5555", "tcp://eth0:5555"))
    }

    /// The message `validate()` refuses `arguments` with, or nil where it takes them.
    static func refusal(_ arguments: [String]) throws -> String? {
        let configuration = try WorkerConfiguration(arguments: arguments, environment: [:])
        do {
            try configuration.validate()
            return nil
        } catch {
            #expect(error.code == .invalidConfiguration)
            return error.message
        }
    }

    @Test("the worker refuses two of its endpoints on one address, naming both, before libzmq says only \"in use\"")
    func workerEndpoints() throws {
        #expect(
            try Self.refusal(["--input", "tcp://127.0.0.1:5555", "--output", "tcp://127.0.0.1:5555"])
                == "--output bind:tcp://127.0.0.1:5555 listens where --input bind:tcp://127.0.0.1:5555 does; each needs "
                + "an address of its own (another port, or * for one the system chooses)")
        let twice = try Self.refusal(["--input", "tcp://*:6000", "--input", "tcp://127.0.0.1:6000"])
        #expect(twice?.hasPrefix("--input bind:tcp://127.0.0.1:6000 listens where --input bind:tcp://*:6000") == true)
        let metrics = try Self.refusal(["--output", "tcp://127.0.0.1:6001", "--metrics", "127.0.0.1:6001"])
        #expect(metrics?.hasPrefix("--metrics 127.0.0.1:6001 listens where --output bind:tcp://127.0.0.1:6001") == true)
        let ipc = try Self.refusal(["--input", "ipc:///tmp/w", "--output", "ipc:///tmp/w"])
        #expect(ipc?.hasSuffix("(another path)") == true)
        // Each on an address of its own is fine, and so are ports the system chooses.
        #expect(try Self.refusal([]) == nil)
        #expect(try Self.refusal(["--input", "tcp://127.0.0.1:0", "--output", "tcp://127.0.0.1:0"]) == nil)
        #expect(try Self.refusal(["--input", "tcp://[::1]:6002", "--output", "tcp://127.0.0.1:6002"]) == nil)
    }

    @Test("an input that connects to the worker's own output is refused: its events would come back without end")
    func ownOutput() throws {
        let loop = try Self.refusal(["--input", "connect:tcp://127.0.0.1:6003", "--output", "tcp://*:6003"])
        #expect(
            loop
                == "--input connect:tcp://127.0.0.1:6003 connects to this worker's own --output bind:tcp://*:6003, "
                + "whose events would come back as input without end")
        #expect(
            try Self.refusal(["--input", "connect:tcp://127.0.0.1:6004", "--output", "tcp://127.0.0.1:6005"]) == nil)
        #expect(try Self.refusal(["--input", "connect:ipc:///tmp/o", "--output", "ipc:///tmp/o"]) != nil)
        #expect(try Self.refusal(["--input", "connect:tcp://[::1]:6006", "--output", "tcp://[::]:6006"]) != nil)
        #expect(try Self.refusal(["--input", "connect:tcp://127.0.0.9:6007", "--output", "tcp://0.0.0.0:6007"]) != nil)
        #expect(try Self.refusal(["--input", "connect:tcp://10.0.0.5:6008", "--output", "tcp://10.0.0.5:6008"]) != nil)
        // localhost is a loopback address without a name server, either family's.
        #expect(try Self.refusal(["--input", "connect:tcp://localhost:6011", "--output", "tcp://*:6011"]) != nil)
        #expect(
            try Self.refusal(["--input", "connect:tcp://LocalHost:6012", "--output", "tcp://127.0.0.1:6012"]) != nil)
        #expect(try Self.refusal(["--input", "connect:tcp://localhost:6013", "--output", "tcp://[::]:6013"]) != nil)
        #expect(
            try Self.refusal(["--input", "connect:tcp://localhost:6014", "--output", "tcp://127.0.0.1:6015"]) == nil)
        // A numeric address under an output bound to every address may be another machine's (a proxy's): taken.
        #expect(try Self.refusal(["--input", "connect:tcp://10.0.0.5:6009", "--output", "tcp://*:6009"]) == nil)
        #expect(try Self.refusal(["--input", "connect:tcp://[fd00::5]:6010", "--output", "tcp://[::]:6010"]) == nil)
    }

    @Test("a bind that failed is said with the option that names it and, for the usual causes, a way out")
    func bindFailure() throws {
        let configuration = try WorkerConfiguration(
            arguments: ["--input", "tcp://127.0.0.1:6101", "--output", "ipc:///tmp/no-such-dir/out"], environment: [:])
        func said(_ errno: Int32, _ address: String) -> String? {
            configuration.bindFailure(ZMQError.failedEndpoint(address, binding: true, errno: errno))
        }
        #expect(
            said(EADDRINUSE, "tcp://127.0.0.1:6101")
                == "--input bind:tcp://127.0.0.1:6101: another process listens on this address (another worker or "
                + "proxy, or one still stopping?); stop it, or give another port (or * for one the system chooses) "
                + "(zmq_bind(tcp://127.0.0.1:6101): Address already in use (errno 98))")
        #expect(said(EADDRINUSE, "ipc:///tmp/no-such-dir/out")?.contains("stop it, or give another path") == true)
        #expect(
            said(ENOENT, "ipc:///tmp/no-such-dir/out")?.hasPrefix(
                "--output bind:ipc:///tmp/no-such-dir/out: the directory /tmp/no-such-dir does not exist; create it, "
                    + "or give another path (zmq_bind(") == true)
        #expect(said(EADDRNOTAVAIL, "tcp://127.0.0.1:6101")?.contains("no network interface of this machine") == true)
        #expect(said(EACCES, "tcp://127.0.0.1:6101")?.contains("give a port from 1024 on") == true)
        #expect(said(EACCES, "ipc:///tmp/no-such-dir/out")?.contains("a directory it may write to") == true)
        #expect(
            said(ENODEV, "tcp://127.0.0.1:6101")?.hasPrefix("--input bind:tcp://127.0.0.1:6101: cannot listen") == true)
        // An address the worker was not given, a connect, another error type: libzmq's own words stay.
        #expect(said(EADDRINUSE, "tcp://127.0.0.1:6102") == nil)
        #expect(
            configuration.bindFailure(
                ZMQError.failedEndpoint("tcp://127.0.0.1:6101", binding: false, errno: EADDRINUSE)) == nil)
        #expect(configuration.bindFailure(CommandLineArguments.Failure(description: "x")) == nil)
    }
}
