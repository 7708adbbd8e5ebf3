import Foundation
import ZeroMQ

/// The raw libzmq peers, run as child processes (`stroke-bench raw-sink` and `stroke-bench raw-echo`): they do
/// nothing with the frames but count or echo them, which is the limit the worker is measured against.
enum RawPeers {
    /// Binds a SUB socket, counts `count` two-frame messages, prints `{"first": ns, "last": ns, "count": n,
    /// "cpuSeconds": s}`, the last being the process's CPU time (all threads) from the first message on.
    /// `curveSecretKey`: be a CURVE server with this key (`--curve`).
    static func sink(endpoint: String, count: Int, connect: Bool = false, curveSecretKey: String? = nil) throws {
        let context = try ZMQContext()
        let socket = try ZMQSocket(context, .sub)
        if let curveSecretKey { try socket.makeCurveServer(try ZMQCurveKeyPair(secretKey: curveSecretKey)) }
        try socket.setHighWaterMarks(receive: 1_000_000)
        try socket.subscribe("")
        if connect { try socket.connect(endpoint) } else { try socket.bind(endpoint) }
        FileHandle.standardError.write(Data("listening \(socket.lastEndpoint)\n".utf8))
        let message = ZMQMessage()
        try socket.setTimeouts(receive: 30_000)
        var received = 0
        var first: UInt64 = 0
        var last: UInt64 = 0
        var cpuAtFirst = 0.0
        while received < count {
            guard try socket.receive(into: message) else { break }
            if !message.hasMore {
                received += 1
                last = BenchClock.now()
                if first == 0 {
                    first = last
                    cpuAtFirst = processCPUSeconds()
                }
            }
        }
        let cpu = processCPUSeconds() - cpuAtFirst
        print("{\"first\":\(first),\"last\":\(last),\"count\":\(received),\"cpuSeconds\":\(cpu)}")
    }

    /// Binds a SUB (input) and an XPUB (output) socket; republishes `[topic, "e"]` for every binary `end`
    /// message and every non-binary payload (probes), like the worker's answer to a stroke's end. With
    /// `workNanoseconds`, spins that long on every message first: a stand-in for a worker that spends that much
    /// more CPU per message than the echo (`--latency-standin`).
    static func echo(input: String, output: String, workNanoseconds: Int = 0) throws {
        let context = try ZMQContext()
        let sub = try ZMQSocket(context, .sub)
        let pub = try ZMQSocket(context, .xpub)
        try sub.setHighWaterMarks(receive: 1_000_000)
        try pub.setHighWaterMarks(send: 1_000_000)
        try sub.subscribe("")
        try sub.bind(input)
        try pub.bind(output)
        FileHandle.standardError.write(
            Data("listening endpoints=input:\(sub.lastEndpoint) output:\(pub.lastEndpoint)\n".utf8))
        let topic = ZMQMessage()
        let payload = ZMQMessage()
        var poller = ZMQPoller(readable: [sub, pub])
        let reply: [UInt8] = Array("e".utf8)
        while true {
            guard try poller.poll(timeoutMilliseconds: 60_000) > 0 else { return }
            if poller.isReadable(1) { while try pub.receiveMultipart(dontWait: true) != nil {} }
            guard poller.isReadable(0) else { continue }
            while try sub.receive(into: topic, dontWait: true) {
                try sub.receive(into: payload)
                if workNanoseconds > 0 {
                    let until = BenchClock.now() + UInt64(workNanoseconds)
                    while BenchClock.now() < until {}
                }
                let bytes = payload.bytes
                if bytes.first != 0xB1 || (bytes.count > 2 && bytes[2] == 3) {
                    let name = topic.bytes
                    // The worker answers on the session id: drop the shard key, as it does.
                    let session = name.count > 4 ? UnsafeRawBufferPointer(rebasing: name[4...]) : name
                    try pub.send(session, more: true)
                    try pub.send(reply)
                }
            }
        }
    }

    /// User and system CPU time of this process, all threads, in seconds.
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) * 1e-6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
