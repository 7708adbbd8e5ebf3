import Testing
import ZeroMQ

@testable import StrokeWorker

@Suite("UnfinishedMessageTracker: a connection that never finishes a message is cut, a busy one never")
struct UnfinishedMessageTrackerTests {
    static let limit: UInt64 = 1000
    static let identity = ZMQConnection.Identity(device: 1, inode: 42)

    /// A tracker following descriptor 7, and the kernel's counts it reads, by descriptor.
    func tracker() -> UnfinishedMessageTracker {
        var tracker = UnfinishedMessageTracker(limit: Self.limit)
        tracker.opened(descriptor: 7, identity: Self.identity)
        return tracker
    }

    @Test("bytes never noted, with the reader's input found empty: cut once they pass the limit, then forgotten")
    func unfinished() {
        var tracker = tracker()
        var received: UInt64 = 0
        var cuts: [UnfinishedMessageTracker.Cut] = []
        for check in 1...5 {
            received = UInt64(check) * 400
            cuts = tracker.check(noted: [], emptied: true) { $0 == 7 ? received : nil }
            if !cuts.isEmpty { break }
        }
        // Up to the check before the one that cut: 1,200 of the 1,600 bytes received.
        #expect(received == 1600)
        #expect(cuts == [.init(descriptor: 7, identity: Self.identity, unexplainedBytes: 1200)])
        #expect(tracker.descriptors.isEmpty)
        #expect(tracker.check(noted: [], emptied: true) { _ in 100_000 }.isEmpty)
    }

    @Test("a connection noted by the reader starts over from the bytes it had then")
    func noted() {
        var tracker = tracker()
        #expect(tracker.check(noted: [], emptied: true) { _ in 900 }.isEmpty)
        #expect(tracker.check(noted: [7], emptied: true) { _ in 1800 }.isEmpty)
        #expect(tracker.check(noted: [], emptied: true) { _ in 2700 }.isEmpty, "900 since the note")
        #expect(tracker.check(noted: [], emptied: true) { _ in 2900 }.isEmpty, "900 up to the previous check")
        let cuts = tracker.check(noted: [], emptied: true) { _ in 3000 }
        #expect(cuts.map(\.unexplainedBytes) == [1100])
    }

    @Test("a connection the reader noted before the monitor told of it starts from its first check")
    func lateMonitor() {
        // The reader read and noted 25 MB of descriptor 7 before the watch heard of the connection.
        var tracker = UnfinishedMessageTracker(limit: Self.limit)
        #expect(tracker.check(noted: [7], emptied: true) { _ in 25_000_000 }.isEmpty)
        tracker.opened(descriptor: 7, identity: Self.identity)
        for check in 1...5 {
            #expect(tracker.check(noted: [], emptied: true) { _ in 25_000_000 + UInt64(check) * 100 }.isEmpty)
        }
        // Not noted before: counted from its start.
        tracker.opened(descriptor: 8, identity: Self.identity)
        #expect(tracker.check(noted: [], emptied: true) { $0 == 8 ? 25_000_000 : 25_000_600 }.isEmpty)
        let cuts = tracker.check(noted: [], emptied: true) { $0 == 8 ? 25_000_000 : 25_000_700 }
        #expect(cuts.map(\.descriptor) == [8])
    }

    @Test("no count while the reader never found its input empty: its backlog may hold the bytes")
    func backlog() {
        var tracker = tracker()
        for check in 1...10 {
            #expect(tracker.check(noted: [], emptied: false) { _ in UInt64(check) * 10_000 }.isEmpty)
        }
        // Emptied at last, and nothing of the connection noted since it was made: 100,000 bytes not read.
        #expect(tracker.check(noted: [], emptied: true) { _ in 100_000 }.map(\.unexplainedBytes) == [100_000])
    }

    @Test("a connection that ended is forgotten; one that is not TCP is never counted")
    func forgotten() {
        var tracker = tracker()
        tracker.opened(descriptor: 9, identity: .init(device: 1, inode: 43))
        tracker.follow(.init(kind: .disconnected, value: 7, endpoint: "tcp://127.0.0.1:5555"))
        #expect(tracker.descriptors == [9])
        for check in 1...5 {
            #expect(tracker.check(noted: [], emptied: true) { _ in nil }.isEmpty, "check \(check)")
        }
        #expect(tracker.descriptors == [9])
    }

    @Test("the default limit: a frame of the disconnecting size and 64 mean gaps between notes")
    func defaultLimit() {
        let disconnecting = WorkerConfiguration().disconnectingMessageBytes
        #expect(disconnecting == 4 << 20)
        #expect(UnfinishedMessageTracker.limit(disconnectingMessageBytes: disconnecting) == 8 << 20)
    }
}

@Suite("MessageSampler and UnfinishedMessageGuard: connections noted in proportion to their bytes")
struct MessageSamplerTests {
    @Test("each connection is noted about once in meanGap of its bytes, whatever the others send")
    func proportional() {
        var sampler = MessageSampler(seed: 7)
        let guarded = UnfinishedMessageGuard(limit: 1)
        var notes: [Int32: Int] = [:]
        // Connection 3 sends 40-byte messages, connection 4 one of 4,000 bytes for every hundred of them: 16 MB each.
        for index in 0..<400_000 {
            sampler.read(bytes: 40) { 3 }
            if index % 100 == 0 { sampler.read(bytes: 4000) { 4 } }
            for descriptor in sampler.noted { notes[descriptor, default: 0] += 1 }
            guarded.collect(from: &sampler)
        }
        // 16,000,000 / 65,536 = 244 notes each, give or take four times the square root.
        for descriptor: Int32 in [3, 4] {
            let count = notes[descriptor] ?? 0
            #expect(count > 180 && count < 310, "connection \(descriptor): \(count) notes")
        }
        #expect(guarded.take().noted == [3, 4])
        #expect(guarded.take().noted.isEmpty, "taken once")
    }

    @Test("messages that name no connection (inproc) note none; the guard hands over that the input was emptied")
    func inprocAndEmptied() {
        var sampler = MessageSampler(seed: 1)
        let guarded = UnfinishedMessageGuard(limit: 1)
        for _ in 0..<100 { sampler.read(bytes: 65_536) { -1 } }
        #expect(sampler.noted.isEmpty)
        sampler.emptied = true
        guarded.collect(from: &sampler)
        #expect(!sampler.emptied)
        let taken = guarded.take()
        #expect(taken.emptied && taken.noted.isEmpty)
        #expect(guarded.take().emptied == false)
    }
}
