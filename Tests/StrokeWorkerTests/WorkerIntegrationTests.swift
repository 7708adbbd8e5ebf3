import Foundation
import StrokeProtocol
import Testing
import ZeroMQ

@testable import StrokeWorker

@Suite("Worker over real sockets", .serialized)
struct WorkerIntegrationTests {
    /// Where finished strokes are recognized: on the lane, on its helper thread (every stroke handed over), or
    /// on a publisher thread that owns the XPUB.
    enum Recognition: String, CaseIterable, CustomTestStringConvertible {
        case lane
        case helper
        case publisher

        var testDescription: String { rawValue }

        func apply(to configuration: inout WorkerConfiguration) {
            switch self {
            case .lane: configuration.recognitionOffload = .off
            case .helper: configuration.recognitionOffload = .always
            case .publisher: configuration.recognitionThread = true
            }
        }
    }

    /// The recorded check of the scenario vectors, as JSON messages.
    static func checkMessages() throws -> [String] {
        let scenario = try ScenarioReplayer.scenarios()[0]
        return try (scenario["messages"] as! [[String: Any]]).map {
            String(decoding: try ScenarioReplayer.frames($0)[1], as: UTF8.self)
        }
    }

    @Test("a full stroke in, a match out, over inproc with a shared context")
    func inproc() async throws {
        let context = try ZMQContext()
        let messages = try Self.checkMessages()
        try await withWorker(
            {
                $0.inputs = [.init(bind: true, address: "inproc://test-input")]
                $0.outputs = [.init(bind: true, address: "inproc://test-output")]
            }, context: context
        ) { input, output, _ in
            let events = try await withClient(input: input, output: output, context: context) { client in
                for message in messages { try client.send(session: "inproc-1", message) }
                return try client.events(2).map { $0.event["event"] as! String }
            }
            #expect(events == ["checkmark", "match"])
        }
    }

    @Test(
        "the checkmark event arrives before the stroke's end is sent (tcp), wherever strokes are recognized",
        arguments: Recognition.allCases)
    func checkmarkBeforeEnd(recognition: Recognition) async throws {
        let messages = try Self.checkMessages()
        try await withWorker({ recognition.apply(to: &$0) }) { input, output, _ in
            let order = try await withClient(input: input, output: output) { (client) -> [String] in
                var order = [String]()
                for message in messages.dropLast() { try client.send(session: "early", message) }
                let checkmark = try client.nextEvent()
                order.append(checkmark.event["event"] as! String)
                order.append("end sent")
                try client.send(session: "early", messages.last!)
                let match = try client.nextEvent()
                order.append("\(match.event["event"]!):\(match.event["name"]!)")
                return order
            }
            #expect(order == ["checkmark", "end sent", "match:check"])
        }
    }

    @Test(
        "bad input of every kind gets its error and the worker keeps serving, wherever strokes are recognized",
        arguments: Recognition.allCases)
    func badInput(recognition: Recognition) async throws {
        let messages = try Self.checkMessages()
        try await withWorker({
            $0.maxMessageBytes = 4096
            recognition.apply(to: &$0)
        }) { input, output, worker in
            let codes = try await withClient(input: input, output: output) { (client) -> [String] in
                let topic = Array(ShardKey.topic(for: "victim").utf8)
                try client.sendRaw([topic, Array("not json".utf8)])
                try client.sendRaw([topic, Array(#"{"type":"fly","seq":1}"#.utf8)])
                try client.sendRaw([topic, Array(#"{"type":"begin","seq":"x","stroke":1}"#.utf8)])
                try client.sendRaw([topic, Array(#"{"type":"points","seq":1,"stroke":1,"points":[[1e999,1,1]]}"#.utf8)])
                try client.sendRaw([topic, [0xB1, 1, 2, 0, 1, 0, 0, 0]])
                try client.sendRaw([topic])
                try client.sendRaw([topic, Array(repeating: 0x20, count: 5000)])
                try client.sendRaw([Array("bad".utf8), Array("{}".utf8)])
                try client.send(session: "victim", #"{"type":"end","seq":1,"stroke":9}"#)
                try client.send(session: "victim", #"{"type":"begin","seq":2,"stroke":9}"#)
                try client.send(session: "victim", #"{"type":"points","seq":4,"stroke":9,"points":[[1,1,1]]}"#)
                try client.send(session: "victim", #"{"type":"points","seq":3,"stroke":9,"points":[[1,1,1]]}"#)
                for message in messages { try client.send(session: "bystander", message) }
                var codes = [String]()
                for _ in 0..<13 {
                    let event = try client.nextEvent().event
                    codes.append(
                        (event["code"] as? String) ?? (event["name"] as? String) ?? (event["event"] as! String))
                }
                return codes
            }
            #expect(
                codes == [
                    "malformed_json", "unknown_type", "invalid_field", "non_finite", "malformed_binary", "frame_count",
                    "message_too_large", "bad_topic", "unknown_stroke", "sequence_gap", "sequence_late", "checkmark",
                    "check",
                ])
            #expect(worker.metrics.errorCounts["bad_topic"] == 1)
            // The client's pings (its check that the worker has its subscription) are no errors.
            #expect(worker.metrics.errorCounts["malformed_json"] == 1)
            #expect(worker.metrics.pings.load(ordering: .relaxed) >= 1)
            #expect(worker.metrics.inputGaps.load(ordering: .relaxed) == 1)
        }
    }

    @Test(
        "interleaved sessions over two lanes behind libzmq proxies, binary and JSON, wherever strokes are recognized",
        arguments: Recognition.allCases)
    func lanes(recognition: Recognition) async throws {
        let messages = try Self.checkMessages()
        try await withWorker({
            $0.lanes = 2
            recognition.apply(to: &$0)
        }) { input, output, worker in
            let results = try await withClient(input: input, output: output) { (client) -> [String: [String]] in
                let decoder = InputDecoder()
                for message in messages {
                    for k in 0..<40 {
                        if k % 2 == 0 {
                            try client.send(session: "lane-\(k)", message)
                        } else {
                            try client.send(session: "lane-\(k)", binary: try decoder.decode(Array(message.utf8)))
                        }
                    }
                }
                var results = [String: [String]]()
                for _ in 0..<80 {
                    let (topic, event) = try client.nextEvent()
                    results[topic, default: []].append((event["name"] as? String) ?? (event["event"] as! String))
                }
                return results
            }
            #expect(results.count == 40)
            #expect(results.values.allSatisfy { $0 == ["checkmark", "check"] })
            #expect(worker.metrics.sessions.load(ordering: .relaxed) == 40)
        }
    }

    @Test(
        "a backlog far beyond the input high-water mark waits in the producer and is answered in full",
        arguments: [1, 2])
    func inputHighWaterMark(lanes: Int) async throws {
        let messages = try Self.checkMessages()
        let sessions = 150
        try await withWorker({
            $0.lanes = lanes
            $0.inputHighWaterMark = 10
        }) { input, output, worker in
            let results = try await withClient(input: input, output: output) { (client) -> [String: [String]] in
                // All messages are sent before any event is read: about 100 times the worker's input queue.
                for message in messages {
                    for k in 0..<sessions { try client.send(session: "backlog-\(k)", message) }
                }
                var results = [String: [String]]()
                for _ in 0..<(2 * sessions) {
                    let (topic, event) = try client.nextEvent()
                    results[topic, default: []].append((event["name"] as? String) ?? (event["event"] as! String))
                }
                return results
            }
            #expect(results.count == sessions)
            #expect(results.values.allSatisfy { $0 == ["checkmark", "check"] })
            #expect(worker.metrics.inputGaps.load(ordering: .relaxed) == 0)
        }
    }

    @Test(
        "a session learns a gesture and matches it (tcp), wherever strokes are recognized",
        arguments: Recognition.allCases)
    func learnedGesture(recognition: Recognition) async throws {
        func stroke(_ k: Int, learn: String? = nil) throws -> [String] {
            let points = LearnedTemplatesTests.bolt(k)
            let begin = try JSONSerialization.data(withJSONObject: [
                "type": "begin", "seq": 2 * k + 1, "stroke": k + 1, "points": points,
            ])
            var end: [String: Any] = ["type": "end", "seq": 2 * k + 2, "stroke": k + 1]
            if let learn { end["learn"] = learn }
            return [begin, try JSONSerialization.data(withJSONObject: end)].map { String(decoding: $0, as: UTF8.self) }
        }
        let messages = try stroke(0, learn: "bolt") + stroke(1) + stroke(2)
        try await withWorker({ recognition.apply(to: &$0) }) { input, output, worker in
            let events = try await withClient(input: input, output: output) { client in
                for message in messages { try client.send(session: "learner", message) }
                return try client.events(3).map { event in
                    ["event", "name", "learned"].map { "\(event.event[$0] ?? "-")" }.joined(separator: " ")
                }
            }
            #expect(events == ["learned bolt -", "match bolt 1", "match bolt 1"])
            #expect(worker.metrics.learnedTemplates.load(ordering: .relaxed) == 1)
        }
    }

    @Test(
        "how strokes are answered is counted: match, nomatch, not_chosen (tcp), wherever strokes are recognized",
        arguments: Recognition.allCases)
    func outcomesCounted(recognition: Recognition) async throws {
        /// The message with its sequence number moved on by one, after the options sent first.
        func later(_ json: String) throws -> String {
            var object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as! [String: Any]
            object["seq"] = (object["seq"] as! Int) + 1
            return String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        }
        let check = try Self.checkMessages()
        let chosen = try check.map(later)
        let scribble = try [
            ["type": "begin", "seq": 1, "stroke": 1, "points": GestureChoiceTests.scribble()] as [String: Any],
            ["type": "end", "seq": 2, "stroke": 1],
        ].map { String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self) }
        try await withWorker({ recognition.apply(to: &$0) }) { input, output, worker in
            let results = try await withClient(input: input, output: output) { client in
                try client.send(session: "chooser", #"{"type":"options","seq":1,"gestures":["circle"]}"#)
                for (message, renumbered) in zip(check, chosen) {
                    try client.send(session: "matcher", message)
                    try client.send(session: "chooser", renumbered)
                }
                for message in scribble { try client.send(session: "scribbler", message) }
                var results: [String: String] = [:]
                while results.count < 3 {
                    let (topic, event) = try client.nextEvent()
                    guard ["match", "nomatch"].contains(event["event"] as? String) else { continue }
                    results[topic] = (event["reason"] as? String) ?? (event["name"] as? String)
                }
                return results
            }
            #expect(results == ["matcher": "check", "chooser": "not_chosen", "scribbler": "below_threshold"])
            // A thread that recognizes a batch adds its outcomes once the batch's events are sent
            // (`EventPipe.Batch.forEachEvent`): the counters may lag the last event by a moment.
            let deadline = ContinuousClock.now + .seconds(10)
            while worker.metrics.strokesMatched.load(ordering: .relaxed)
                + worker.metrics.strokesUnmatched.load(ordering: .relaxed) < 3, ContinuousClock.now < deadline
            {
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(worker.metrics.strokesMatched.load(ordering: .relaxed) == 1)
            #expect(worker.metrics.strokesUnmatched.load(ordering: .relaxed) == 2)
            #expect(worker.metrics.strokesNotChosen.load(ordering: .relaxed) == 1)
            #expect(worker.metrics.snapshot["strokesNotChosen"] == 1)
        }
    }

    @Test(
        "a grouping session's strokes are matched together once the wait passes (tcp), wherever strokes are recognized",
        arguments: Recognition.allCases)
    func multistrokeGesture(recognition: Recognition) async throws {
        let strokes = [
            MultistrokeGestureTests.line([0, 0], [90, 90]), MultistrokeGestureTests.line([90, 0], [0, 90], t: 1400),
        ]
        let messages = try strokes.enumerated().flatMap { index, points in
            try [
                ["type": "begin", "seq": 2 * index + 1, "stroke": index + 1, "points": points] as [String: Any],
                ["type": "end", "seq": 2 * index + 2, "stroke": index + 1],
            ].map { String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self) }
        }
        try await withWorker({
            recognition.apply(to: &$0)
            $0.multistrokeMilliseconds = 50
        }) { input, output, worker in
            let events = try await withClient(input: input, output: output) { client in
                for message in messages { try client.send(session: "scribe", message) }
                return try client.events(1).map { event in
                    (event.event["event"] as? String, event.event["strokes"] as? [Int], event.event["seq"] as? Int)
                }
            }
            #expect(["match", "nomatch"].contains(events.first?.0))
            #expect(events.first?.1 == [1, 2])
            #expect(events.first?.2 == 4)
            #expect(worker.metrics.gesturesGrouped.load(ordering: .relaxed) == 1)
        }
    }

    @Test("shutdown drains and run() returns; a second shutdown is harmless", arguments: Recognition.allCases)
    func shutdown(recognition: Recognition) async throws {
        var configuration = WorkerConfiguration()
        recognition.apply(to: &configuration)
        configuration.inputs = [.init(bind: true, address: "tcp://127.0.0.1:*")]
        configuration.outputs = [.init(bind: true, address: "tcp://127.0.0.1:*")]
        configuration.logLevel = .error
        let worker = try Worker(configuration: configuration)
        let running = Task { try await worker.run() }
        await worker.waitUntilReady()
        #expect(worker.isReady)
        worker.shutdown()
        worker.shutdown()
        try await running.value
        #expect(!worker.isReady)
    }

    @Test("binding a taken address fails run() with the libzmq error")
    func addressInUse() async throws {
        try await withWorker({ _ in }) { input, output, _ in
            var configuration = WorkerConfiguration()
            configuration.inputs = [.init(bind: true, address: input)]
            configuration.outputs = [.init(bind: true, address: "tcp://127.0.0.1:*")]
            configuration.logLevel = .error
            let second = try Worker(configuration: configuration)
            await #expect(throws: ZMQError.self) { try await second.run() }
            // The output is bound by the publisher thread: its failure reaches run() too.
            configuration.inputs = [.init(bind: true, address: "tcp://127.0.0.1:*")]
            configuration.outputs = [.init(bind: true, address: output)]
            configuration.recognitionThread = true
            let third = try Worker(configuration: configuration)
            await #expect(throws: ZMQError.self) { try await third.run() }
        }
    }
}
