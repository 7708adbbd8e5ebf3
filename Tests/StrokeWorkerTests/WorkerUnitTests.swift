import Foundation
import StrokeProtocol
import StrokeRecognition
import Synchronization
import Testing

@testable import StrokeWorker

@Suite("Worker building blocks")
struct WorkerUnitTests {
    @Test("background work runs on a thread of its own that gets the cores only when nothing else wants them")
    func runWhenIdle() {
        let caller = pthread_self()
        let (policy, sameThread, value) = ThreadRunner.runWhenIdle(name: "test-idle") {
            (sched_getscheduler(0), pthread_equal(pthread_self(), caller) != 0, 42)
        }
        #expect(value == 42 && !sameThread)
        #if os(Linux)
            #expect(policy == 5, "SCHED_IDLE")
        #endif
        #expect(sched_getscheduler(0) != 5, "the caller keeps its priority")
    }

    @Test("a thread started by another is called by its own name from its first line, not by its starter's")
    func threadNames() {
        let names = Mutex<[String]>([])
        let done = DispatchSemaphore(value: 0)
        let count = 500
        ThreadRunner.start(name: "test-starter") {
            for index in 0..<count {
                ThreadRunner.start(name: "test-\(index)") {
                    let name =
                        (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8))?
                        .trimmingCharacters(in: .newlines) ?? ""
                    names.withLock { $0.append(name) }
                    done.signal()
                }
            }
        }
        for _ in 0..<count { done.wait() }
        let wrong = names.withLock { $0 }.filter { !$0.hasPrefix("test-") || $0 == "test-starter" }
        #expect(names.withLock { $0.count } == count)
        #expect(wrong.isEmpty, "\(wrong.count) of \(count) threads had another name: \(Set(wrong))")
        #expect(Set(names.withLock { $0 }).count == count, "each its own")
    }

    @Test("sequence tracker transitions")
    func sequence() {
        var tracker = SequenceTracker()
        #expect(tracker.receive(1) == .accept)
        #expect(tracker.receive(2) == .accept)
        #expect(tracker.receive(2) == .rejectDuplicate)
        #expect(tracker.receive(5) == .acceptAfterGap(expected: 3, missing: 2))
        #expect(tracker.receive(4) == .rejectLate(last: 5))
        #expect(tracker.receive(6) == .accept)
        // 1 after a larger number: the producer started over, and its numbering goes on from 1.
        #expect(tracker.receive(1) == .restart(last: 6))
        #expect(tracker.receive(1) == .rejectDuplicate)
        #expect(tracker.receive(2) == .accept)
        var fresh = SequenceTracker()
        #expect(fresh.receive(9) == .acceptAfterReset(sequence: 9))
        #expect(fresh.receive(10) == .accept)
        // A corrupted number: message 3 arrives numbered 1000. Message 4 is late, as any smaller number is; message
        // 5, next to it, shows 1000 to be out of line, and the numbering goes on.
        var stray = SequenceTracker()
        #expect(stray.receive(1) == .accept)
        #expect(stray.receive(2) == .accept)
        #expect(stray.receive(1000) == .acceptAfterGap(expected: 3, missing: 997))
        #expect(stray.receive(4) == .rejectLate(last: 1000))
        #expect(stray.receive(5) == .acceptAfterStray(stray: 1000, missing: 997))
        #expect(stray.receive(6) == .accept)
        // A stray message between two others: 7 and 8 go on from before it.
        #expect(stray.receive(500) == .acceptAfterGap(expected: 7, missing: 493))
        #expect(stray.receive(7) == .rejectLate(last: 500))
        #expect(stray.receive(8) == .acceptAfterStray(stray: 500, missing: 493))
        // A swap: one message after a gap continues the numbering before it, and the next goes on from the gap.
        #expect(stray.receive(10) == .acceptAfterGap(expected: 9, missing: 1))
        #expect(stray.receive(9) == .rejectLate(last: 10))
        #expect(stray.receive(11) == .accept)
        // Only numbers in a row decide, right after the gap's late message.
        #expect(stray.receive(30) == .acceptAfterGap(expected: 12, missing: 18))
        #expect(stray.receive(12) == .rejectLate(last: 30))
        #expect(stray.receive(30) == .rejectDuplicate)
        #expect(stray.receive(13) == .rejectLate(last: 30))
        #expect(stray.receive(40) == .acceptAfterGap(expected: 31, missing: 9))
        #expect(stray.receive(32) == .rejectLate(last: 40))
        #expect(stray.receive(34) == .rejectLate(last: 40))
        #expect(stray.receive(35) == .rejectLate(last: 40))
        // Far past the gap's start (over 255), a late message does not start the check.
        #expect(stray.receive(1000) == .acceptAfterGap(expected: 41, missing: 959))
        #expect(stray.receive(400) == .rejectLate(last: 1000))
        #expect(stray.receive(401) == .rejectLate(last: 1000))
    }

    @Test("stroke storage keeps the points and the detector's state when it grows, and forgets them on reset")
    func strokeStorage() throws {
        // A check drawn in batches of 7 points: down-right for 60 points, then up-right for 120, speeding up (its
        // distance grows as the square of the time), so that it fires early on the times the storage keeps.
        let points = (0..<180).map { k -> WirePoint in
            let along = Double(k)
            if k < 60 { return WirePoint(x: along, y: along, t: along) }
            return WirePoint(x: along, y: 60 - 1.5 * (along - 60), t: 60 + 120 * ((along - 60) / 120).squareRoot())
        }
        let strokePoints = points.map { StrokePoint(x: $0.x, y: $0.y, time: $0.t) }
        var detector = CheckmarkDetector()
        let expected = detector.add(contentsOf: strokePoints)
        #expect(expected != nil)
        var withoutSpeed = CheckmarkDetector(configuration: CheckmarkConfiguration(earlyFireFactor: 1))
        #expect(try #require(expected).pointIndex < withoutSpeed.add(contentsOf: strokePoints)?.pointIndex ?? 0)
        var storage = StrokeStorage.make(pointCapacity: 4, detector: CheckmarkDetector.State())
        var fired: CheckmarkDetector.Detection?
        for start in stride(from: 0, to: points.count, by: 7) {
            let batch = Array(points[start..<min(start + 7, points.count)])
            if storage.header.pointCount + batch.count > storage.header.pointCapacity {
                storage = storage.grown(toHold: storage.header.pointCount + batch.count)
            }
            batch.withUnsafeBufferPointer { storage.append($0) }
            let detection = batch.withUnsafeBufferPointer {
                storage.detectAppended(batch.count, times: .init($0, time: \.t))
            }
            fired = fired ?? detection
        }
        #expect(fired == expected)
        #expect(storage.header.detector.pointCount == points.count)
        #expect(storage.header.pointCapacity >= points.count)
        storage.withPoints { stored in
            #expect(stored.count == points.count)
            #expect(zip(stored, points).allSatisfy { $0 == SIMD2($1.x, $1.y) })
        }
        storage.reset()
        #expect(storage.header.pointCount == 0)
        #expect(storage.header.detector.detection == nil)
        #expect(storage.header.detector.pointCount == 0)
    }

    @Test("lifecycle transitions")
    func lifecycle() {
        var lifecycle = WorkerLifecycle()
        #expect(lifecycle.start() == .startThreads)
        #expect(lifecycle.start() == .none)
        #expect(lifecycle.lanesReady() == .announceReady)
        #expect(lifecycle.shutdownRequested() == .stopIntake)
        #expect(lifecycle.shutdownRequested() == .none)
        #expect(lifecycle.lanesFinished() == .finish)
        #expect(lifecycle.state == .stopped)
        var early = WorkerLifecycle()
        #expect(early.shutdownRequested() == .none)
        #expect(early.state == .stopped)
    }

    @Test("session table insert, find, remove with many keys, short (inline) and long")
    func table() {
        var table = SessionTable(capacity: 4)
        var keys = [[UInt8]]()
        // Long keys share their first 32 bytes, so only the heap copy tells them apart; "x" and "x\0" share a
        // zero-padded inline head and differ only in length.
        let longPrefix = String(repeating: "p", count: 32)
        for k in 0..<5000 {
            let key = Array((k % 2 == 0 ? "session-\(k)" : "\(longPrefix)-\(k)").utf8)
            keys.append(key)
        }
        keys.append(Array("x".utf8))
        keys.append(Array("x".utf8) + [0])
        for key in keys {
            let hash = key.withUnsafeBytes { table.hash($0) }
            _ = table.insert(
                Session(
                    key: key.withUnsafeBytes { SessionKey($0) }, hash: hash, shardKey: 0, now: 0, checkmark: true,
                    followsTilt: true)
            )
        }
        for k in stride(from: 0, to: 5000, by: 3) {
            let hash = keys[k].withUnsafeBytes { table.hash($0) }
            let index = keys[k].withUnsafeBytes { table.find($0, hash: hash) }!
            table.remove(at: index)
        }
        for (k, key) in keys.enumerated() {
            let hash = key.withUnsafeBytes { table.hash($0) }
            let index = key.withUnsafeBytes { table.find($0, hash: hash) }
            #expect((index != nil) == (k >= 5000 || k % 3 != 0))
            if let index { #expect(table[index].key.withUnsafeBytes { Array($0) } == key) }
        }
        #expect(table.count == 5002 - 1667)
    }

    @Test("fetching ahead finds sessions beyond their home slot, and only the session whose hash it was asked for")
    func prefetchHints() {
        var table = SessionTable()
        let keys = (0..<10_000).map { Array("hint-\($0)".utf8) }
        for key in keys {
            let hash = key.withUnsafeBytes { table.hash($0) }
            _ = table.insert(
                Session(
                    key: key.withUnsafeBytes { SessionKey($0) }, hash: hash, shardKey: 0, now: 0, checkmark: true,
                    followsTilt: true)
            )
        }
        var hinted = 0
        for key in keys {
            let hash = key.withUnsafeBytes { table.hash($0) }
            table.prefetchSlot(hash: hash)
            let hint = table.prefetchSession(hash: hash)
            if hint >= 0 {
                hinted += 1
                #expect(Int(hint) == key.withUnsafeBytes { table.find($0, hash: hash) })
            }
        }
        // At this load (0.61) about 70% of the sessions sit in their home slot and 94% within the first four of
        // their probe; reading the home slot alone hinted at the first share only.
        #expect(hinted * 100 >= keys.count * 85)
        let absent = Array("no-such-session".utf8).withUnsafeBytes { table.hash($0) }
        #expect(table.prefetchSession(hash: absent) == -1)
    }

    @Test("a session's state takes 112 bytes: its small fields fill the room its 8-byte ones leave")
    func sessionSize() {
        // 100,000 idle sessions are resident in the worker (issue 6's memory target); a field declared in the
        // wrong place rounds the session up to the next 16 bytes.
        #expect(MemoryLayout<Session>.stride <= 112)
    }

    @Test(
        "an open stroke's storage header takes 112 bytes, the flag of a held check included"
    )
    func strokeHeaderSize() {
        #expect(MemoryLayout<StrokeStorage.Header>.stride == 112)
    }

    @Test("a session id's head holds its first 32 bytes in memory order, zero-padded, whatever its length and address")
    func sessionKeyHead() {
        // Bytes that differ from each other and from zero, read from every offset of a larger buffer, so that the
        // loads of a short id meet every alignment.
        let buffer = (0..<48).map { UInt8(0x80 | $0) }
        buffer.withUnsafeBytes { all in
            for offset in 0..<8 {
                for length in 0...(all.count - offset) {
                    let id = UnsafeRawBufferPointer(rebasing: all[offset..<(offset + length)])
                    var expected = [UInt8](repeating: 0, count: SessionKey.inlineCapacity)
                    for k in 0..<min(length, SessionKey.inlineCapacity) { expected[k] = id[k] }
                    let head = SessionKey.head(of: id)
                    #expect(withUnsafeBytes(of: head) { Array($0) } == expected, "offset \(offset), length \(length)")
                    #expect(SessionKey(id).withUnsafeBytes { Array($0) } == Array(id))
                }
            }
        }
    }

    @Test("the table hash depends on every byte of the id and on its length, and differs between tables")
    func tableHash() {
        let table = SessionTable()
        // Ids of every length the protocol allows, and each with its last byte changed: the short ones fill the
        // head, the long ones reach the bytes hashed past it; "x" and "x\0" share a zero-padded head.
        var ids = (1...ShardKey.maximumSessionIDLength).flatMap { length in
            let id = (0..<length).map { UInt8(ascii: "a") + UInt8($0 % 26) }
            return [id, id.dropLast() + [UInt8(ascii: "#")]]
        }
        ids += [[UInt8(ascii: "x")], [UInt8(ascii: "x"), 0]]
        let hashes = ids.map { id in id.withUnsafeBytes { table.hash($0) } }
        #expect(Set(hashes).count == ids.count)
        // The same bytes hash alike however they are passed: alone or with their head.
        for id in ids {
            id.withUnsafeBytes { bytes in
                #expect(table.hash(bytes) == table.hash(bytes, head: SessionKey.head(of: bytes)))
            }
        }
        // Each table draws its own secrets, so slots cannot be aimed at from outside.
        let other = SessionTable()
        #expect(Array("player-42".utf8).withUnsafeBytes { table.hash($0) != other.hash($0) })
    }

    @Test("a registry's independent copy resolves every slot to the same library, name and results")
    func registryCopy() throws {
        var custom = TemplateLibrary(name: "a-library-with-a-long-name", orientation: .invariant)
        let builtIn = try TemplateLibrary.builtIn()
        for template in builtIn.templates.prefix(16) { custom.add(template) }
        let registry = try LibraryRegistry([builtIn, custom])
        let copy = registry.independentCopy()
        #expect(copy.entries.map(\.name) == registry.entries.map(\.name))
        let stroke = builtIn.templates[40].points
        for library in Int32(0)...1 {
            for invariant in [nil, true, false] {
                let slot = LibraryRegistry.Slot(library: library, invariant: invariant)
                #expect(copy.name(slot) == registry.name(slot))
                #expect(copy.recognizer(slot).library == registry.recognizer(slot).library)
                #expect(
                    try copy.recognizer(slot).recognize(points: stroke)
                        == registry.recognizer(slot).recognize(points: stroke))
            }
        }
    }

    /// `prepare` fetches a stroke's header through its reference read as bits, to avoid a retain that would wait
    /// for the line: the bits must be the object's address when a stroke is open and null when none is.
    @Test("the first stroke's storage reference lies where the prefetch reads it")
    func firstStorageOffset() {
        var strokes = OpenStrokes()
        func bits() -> UInt {
            withUnsafeBytes(of: &strokes) { $0.load(fromByteOffset: OpenStrokes.firstStorageOffset, as: UInt.self) }
        }
        #expect(bits() == 0)
        strokes.append(OpenStroke(id: 1, pointer: 0, detecting: true, detector: CheckmarkDetector.State()))
        strokes.append(OpenStroke(id: 2, pointer: 0, detecting: true, detector: CheckmarkDetector.State()))
        let first = strokes.withStroke(at: 0) { UInt(bitPattern: Unmanaged.passUnretained($0.storage).toOpaque()) }
        #expect(bits() == first)
        _ = strokes.remove(at: 0)
        let second = strokes.withStroke(at: 0) { UInt(bitPattern: Unmanaged.passUnretained($0.storage).toOpaque()) }
        #expect(bits() == second && second != first)
        _ = strokes.remove(at: 0)
        #expect(bits() == 0)
    }

    @Test("configuration from flags and environment, with clear errors")
    func configuration() throws {
        let configuration = try WorkerConfiguration(
            arguments: [
                "--input", "connect:tcp://127.0.0.1:7000", "--shard", "2/3", "--lanes=2", "--log-format", "json",
            ],
            environment: [
                "STROKE_WORKER_OUTPUT": "bind:ipc:///tmp/a,bind:tcp://127.0.0.1:7001",
                "STROKE_WORKER_MAX_SESSIONS": "10",
                "STROKE_WORKER_RECOGNITION_OFFLOAD": "always",
                "STROKE_WORKER_INPUT_HWM": "250",
                "STROKE_WORKER_CHECKMARK": "off",
                "STROKE_WORKER_MAX_SESSION_TEMPLATES": "4",
            ])
        #expect(configuration.inputs == [.init(bind: false, address: "tcp://127.0.0.1:7000")])
        #expect(configuration.outputs.count == 2)
        #expect(configuration.shard == (2, 3))
        #expect(configuration.lanes == 2)
        #expect(configuration.maxSessions == 10)
        #expect(configuration.logFormat == .json)
        #expect(configuration.recognitionOffload == .always)
        #expect(WorkerConfiguration().recognitionOffload == .whenBusy)
        #expect(configuration.inputHighWaterMark == 250)
        #expect(configuration.highWaterMark == 100_000)
        #expect(!configuration.checkmarkByDefault && WorkerConfiguration().checkmarkByDefault)
        #expect(try WorkerConfiguration(arguments: ["--checkmark", "on"], environment: [:]).checkmarkByDefault)
        #expect(WorkerConfiguration().checkmarkFollowsTilt)
        #expect(
            try !WorkerConfiguration(arguments: ["--checkmark-follow-tilt", "off"], environment: [:])
                .checkmarkFollowsTilt)
        #expect(
            try !WorkerConfiguration(arguments: [], environment: ["STROKE_WORKER_CHECKMARK_FOLLOW_TILT": "off"])
                .checkmarkFollowsTilt)
        let flags = try WorkerConfiguration(arguments: ["--input-hwm", "0", "--hwm", "7"], environment: [:])
        #expect(flags.inputHighWaterMark == 0 && flags.highWaterMark == 7)
        #expect(configuration.maxSessionTemplates == 4 && WorkerConfiguration().maxSessionTemplates == 32)
        let learning = try WorkerConfiguration(
            arguments: ["--max-learned-templates", "9", "--max-session-templates", "0"], environment: [:])
        #expect(learning.maxLearnedTemplates == 9 && learning.maxSessionTemplates == 0)
        #expect(WorkerConfiguration().maxLearnedTemplates == 50_000)
        let verdict = try WorkerConfiguration(
            arguments: ["--checkmark-gesture", "tick"], environment: ["STROKE_WORKER_CHECKMARK_MARGIN": "0.1"])
        #expect(verdict.recognizer.checkmarkGesture == "tick" && verdict.recognizer.checkmarkMargin == 0.1)
        #expect(WorkerConfiguration().recognizer.checkmarkGesture == "check")
        #expect(WorkerConfiguration().recognizer.checkmarkMargin == 0.04)
        #expect(WorkerConfiguration().recognizer.choiceMargin == 0.05)
        let margins = try ["0", "0.2", "inf"].map {
            try WorkerConfiguration(arguments: [], environment: ["STROKE_WORKER_CHOICE_MARGIN": $0]).recognizer
        }
        #expect(margins.map(\.choiceMargin) == [0, 0.2, .infinity])
        #expect(
            try WorkerConfiguration(arguments: ["--choice-margin", "0.1"], environment: [:]).recognizer.choiceMargin
                == 0.1)
        #expect(WorkerConfiguration().stateFile == nil)
        #expect(
            try WorkerConfiguration(arguments: [], environment: ["STROKE_WORKER_STATE_FILE": "/var/lib/s.json"])
                .stateFile == "/var/lib/s.json")
        #expect(try WorkerConfiguration(arguments: ["--state-file", "s.json"], environment: [:]).stateFile == "s.json")
        #expect(WorkerConfiguration().adoptStatePaths.isEmpty && WorkerConfiguration().adoptStateMaxAgeSeconds == 300)
        #expect(WorkerConfiguration().minimumStrokeSize == 0)
        #expect(
            try WorkerConfiguration(arguments: ["--minimum-stroke-size", "12.5"], environment: [:]).minimumStrokeSize
                == 12.5)
        #expect(
            try WorkerConfiguration(arguments: [], environment: ["STROKE_WORKER_MINIMUM_STROKE_SIZE": "0.02"])
                .minimumStrokeSize == 0.02)
        let adopting = try WorkerConfiguration(
            arguments: [
                "--adopt-state", "/peers/a.json,/peers/b", "--adopt-state", "/c", "--adopt-state-max-age", "60",
            ],
            environment: ["STROKE_WORKER_ADOPT_STATE": "/ignored"])
        #expect(
            adopting.adoptStatePaths == ["/peers/a.json", "/peers/b", "/c"] && adopting.adoptStateMaxAgeSeconds == 60)
        #expect(
            try WorkerConfiguration(arguments: [], environment: ["STROKE_WORKER_ADOPT_STATE": "/p/0,/p/1"])
                .adoptStatePaths == ["/p/0", "/p/1"])
        let ordinal = try WorkerConfiguration(
            arguments: ["--shard", "ordinal/3"], environment: ["HOSTNAME": "stroke-worker-2"])
        #expect(ordinal.shard == (2, 3))
        for bad in [
            ["--shard", "3/3"], ["--lanes", "0"], ["--bogus", "1"], ["--log-level", "loud"], ["stray"], ["--hwm"],
            ["--recognition-offload", "sometimes"], ["--input-hwm", "-1"], ["--input-hwm", "many"],
            ["--checkmark", "maybe"], ["--checkmark-follow-tilt", "tilted"], ["--recognition-thread", "yes"],
            ["--max-session-templates", "-1"],
            ["--max-learned-templates", "many"], ["--checkmark-margin", "2"], ["--checkmark-margin", "close"],
            ["--checkmark-margin", "nan"], ["--choice-margin", "-0.1"], ["--choice-margin", "nan"],
            ["--choice-margin", "wide"], ["--adopt-state-max-age", "0"], ["--adopt-state-max-age", "soon"],
            ["--minimum-stroke-size", "-1"], ["--minimum-stroke-size", "inf"], ["--minimum-stroke-size", "nan"],
            ["--minimum-stroke-size", "big"],
        ] {
            #expect(throws: CommandLineArguments.Failure.self) {
                try WorkerConfiguration(arguments: bad, environment: [:])
            }
        }
        #expect(throws: (any Error).self) {
            try WorkerConfiguration(arguments: ["--library", "/nonexistent.json"], environment: [:])
        }
        // The detector's tuning from a file; a bad one stops the worker before it starts, with the file named.
        let tuning = NSTemporaryDirectory() + "checkmark-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: tuning) }
        try #"{"fireRatio": 1.3}"#.write(toFile: tuning, atomically: true, encoding: .utf8)
        let tuned = try WorkerConfiguration(arguments: [], environment: ["STROKE_WORKER_CHECKMARK_CONFIG": tuning])
        #expect(tuned.checkmark.fireRatio == 1.3 && tuned.checkmark.capacity == CheckmarkConfiguration.default.capacity)
        try #"{"capacity": 2}"#.write(toFile: tuning, atomically: true, encoding: .utf8)
        #expect {
            try WorkerConfiguration(arguments: ["--checkmark-config", tuning], environment: [:])
        } throws: { error in
            (error as? RecognitionError)?.code == .invalidConfiguration
                && (error as? RecognitionError)?.message.contains(tuning) == true
        }
        // A configuration built in code meets the command line's limits too, checked before a worker starts.
        try WorkerConfiguration().validate()
        for change in [
            { (c: inout WorkerConfiguration) in c.checkmark.minimumLegPoints = 0 }, { $0.maxOpenStrokes = 0 },
            { $0.lanes = 65 }, { $0.inputHighWaterMark = -1 }, { $0.shard = (3, 3) }, { $0.recognizer.pointCount = 2 },
        ] {
            var programmatic = WorkerConfiguration()
            change(&programmatic)
            #expect(throws: RecognitionError.self) { try Worker(configuration: programmatic) }
        }
        for limit in WorkerConfiguration.limits {
            #expect(WorkerConfiguration.options.contains { $0.flag == limit.flag }, "--\(limit.flag) has an option")
        }
        for option in WorkerConfiguration.options {
            #expect(
                WorkerConfiguration.help.contains("--\(option.flag)") && WorkerConfiguration.help.contains(option.env))
            #expect(option.help.contains("Default:"))
        }
    }

    @Test("a lane counts as saturated only after a window in which it waited at most a tenth of the time")
    func laneLoad() {
        let start = ContinuousClock.now
        var load = LaneLoad(now: start)
        // Half the window spent waiting: not saturated.
        load.waited(from: start, to: start + .milliseconds(5))
        #expect(!load.saturated)
        load.waited(from: start + .milliseconds(8), to: start + .milliseconds(10))
        #expect(!load.saturated)
        // The next window: 0.5 ms of 10 ms waiting. Nothing changes until the window is complete.
        load.waited(from: start + .milliseconds(12), to: start + .microseconds(12_500))
        #expect(!load.saturated)
        load.waited(from: start + .milliseconds(20), to: start + .milliseconds(20))
        #expect(load.saturated)
        // Idle again: a long wait ends saturation at once, since it closes its window.
        load.waited(from: start + .milliseconds(21), to: start + .milliseconds(121))
        #expect(!load.saturated)
    }
}
