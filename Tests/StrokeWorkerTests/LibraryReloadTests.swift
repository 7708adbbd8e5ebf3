import Foundation
import StrokeRecognition
import Testing
import ZeroMQ

@testable import StrokeWorker

@Suite("Reloading template libraries", .serialized)
struct LibraryReloadTests {
    /// The check stroke of the scenario vectors, as its points.
    static func checkPoints() throws -> [SIMD2<Double>] {
        try WorkerIntegrationTests.checkMessages().flatMap { message -> [SIMD2<Double>] in
            let object = try JSONSerialization.jsonObject(with: Data(message.utf8)) as! [String: Any]
            return (object["points"] as? [[Double]] ?? []).map { SIMD2($0[0], $0[1]) }
        }
    }

    /// A circle of 64 points.
    static let circle: [SIMD2<Double>] = (0..<64).map { (k: Int) -> SIMD2<Double> in
        let angle = Double(k) / 32 * Double.pi
        return SIMD2<Double>(100 + 50 * cos(angle), 100 + 50 * sin(angle))
    }

    /// The names of the match events of `messages` sent to a fresh session that first picks library `mine`.
    static func matches(_ client: TestClient, session: String, messages: [String]) throws -> [String] {
        try client.send(session: session, #"{"type": "options", "seq": 1, "library": "mine"}"#)
        for message in messages {
            // The scenario's numbers, one later: the options message took 1.
            var object = try JSONSerialization.jsonObject(with: Data(message.utf8)) as! [String: Any]
            object["seq"] = (object["seq"] as! Int) + 1
            try client.send(
                session: session, String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self))
        }
        while true {
            let event = try client.nextEvent().event
            if event["event"] as? String == "match" || event["event"] as? String == "nomatch" {
                return [event["event"] as! String, event["name"] as? String ?? "-"]
            }
        }
    }

    /// A worker whose only library file is `path`, read now and reloaded by the test, set up for `recognition`.
    static func withLibraryWorker(
        path: String, recognition: WorkerIntegrationTests.Recognition? = nil,
        _ body: @escaping @Sendable (_ input: String, _ output: String, _ worker: Worker) async throws -> Void
    ) async throws {
        let loaded = try TemplateLibrary(contentsOf: path)
        try await withWorker(
            {
                recognition?.apply(to: &$0)
                $0.libraryFiles = [path]
                $0.libraries = [loaded]
                $0.logLevel = .error
            }, body)
    }

    /// A library file's path in a directory of its own, removed after `body`.
    static func withLibraryPath(_ body: (String) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("reload-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(directory.appendingPathComponent("mine.json").path)
    }

    @Test(
        "a reload recognizes with the files as they are now, wherever strokes are recognized; a bad file or a renamed library changes nothing",
        arguments: WorkerIntegrationTests.Recognition.allCases)
    func reload(recognition: WorkerIntegrationTests.Recognition) async throws {
        try await Self.withLibraryPath { path in
            let check = try Self.checkPoints()
            let library = TemplateLibrary(
                name: "mine", templates: [GestureTemplate(name: "circle", points: Self.circle)])
            try library.save(to: path)
            let renamed = {
                var renamed = library
                renamed.name = "yours"
                return renamed
            }()
            let grown = {
                var grown = library
                grown.add(GestureTemplate(name: "tick", points: check))
                return grown
            }()
            let messages = try WorkerIntegrationTests.checkMessages()
            try await Self.withLibraryWorker(path: path, recognition: recognition) { input, output, worker in
                let before = try await withClient(input: input, output: output) {
                    try Self.matches($0, session: "reload-1", messages: messages)
                }
                #expect(before == ["match", "circle"] || before[0] == "nomatch")
                // A file that is not a library, then one that renames it: neither replaces anything.
                try Data("{".utf8).write(to: URL(fileURLWithPath: path))
                #expect(!worker.reloadLibraries())
                try renamed.save(to: path)
                #expect(!worker.reloadLibraries())
                let between = try await withClient(input: input, output: output) {
                    try Self.matches($0, session: "reload-2", messages: messages)
                }
                #expect(between == before)
                try grown.save(to: path)
                #expect(worker.reloadLibraries())
                let after = try await withClient(input: input, output: output) {
                    try Self.matches($0, session: "reload-3", messages: messages)
                }
                #expect(after == ["match", "tick"])
            }
        }
    }

    @Test("a library read from a pipe is kept at a reload, and the files beside it are read again")
    func pipesKept() async throws {
        try await Self.withLibraryPath { path in
            let piped = TemplateLibrary(
                name: "piped", templates: [GestureTemplate(name: "circle", points: Self.circle)])
            var mine = TemplateLibrary(name: "mine", templates: [GestureTemplate(name: "circle", points: Self.circle)])
            try mine.save(to: path)
            // A FIFO with no writer: reading it at the reload would wait for one for good.
            let fifo = path + ".fifo"
            #expect(mkfifo(fifo, 0o600) == 0)
            var configuration = WorkerConfiguration()
            configuration.libraryFiles = [fifo, path]
            configuration.libraries = [piped, mine]
            configuration.logLevel = .error
            let worker = try Worker(configuration: configuration)
            mine.add(GestureTemplate(name: "tick", points: try Self.checkPoints()))
            try mine.save(to: path)
            #expect(worker.reloadLibraries())
            let counts = worker.libraries.registry.entries.map { "\($0.name) \($0.own.templateCount)" }
            #expect(counts.dropFirst() == ["piped 1", "mine 2"])
        }
    }

    @Test(
        "a reload that gives a gesture a threshold of its own (a version 3 file) holds its matches to it, wherever strokes are recognized",
        arguments: WorkerIntegrationTests.Recognition.allCases)
    func gestureThreshold(recognition: WorkerIntegrationTests.Recognition) async throws {
        try await Self.withLibraryPath { path in
            // The check as a template, each point moved a little: the check sent scores high, but not 1.
            let check = try Self.checkPoints().enumerated().map { k, point in
                point + SIMD2(Double(k % 3) - 1, Double(k % 2)) * 2
            }
            let library = TemplateLibrary(
                name: "mine",
                templates: [GestureTemplate(name: "circle", points: Self.circle), .init(name: "tick", points: check)])
            try library.save(to: path)
            let strict = {
                var strict = library
                strict.gestureMinimumScores = ["tick": 0.999]
                return strict
            }()
            let messages = try WorkerIntegrationTests.checkMessages()
            try await Self.withLibraryWorker(path: path, recognition: recognition) { input, output, worker in
                func answer(_ session: String) async throws -> [String] {
                    try await withClient(input: input, output: output) {
                        try Self.matches($0, session: session, messages: messages)
                    }
                }
                #expect(try await answer("threshold-1") == ["match", "tick"])
                try strict.save(to: path)
                #expect(try TemplateLibrary(contentsOf: path).fileVersion == 3)
                #expect(worker.reloadLibraries())
                #expect(try await answer("threshold-2") == ["nomatch", "-"])
                try library.save(to: path)
                #expect(worker.reloadLibraries())
                #expect(try await answer("threshold-3") == ["match", "tick"])
            }
        }
    }

    @Test("learned gestures follow a reload that changes their library's orientation")
    func learnedFollowReload() async throws {
        try await Self.withLibraryPath { path in
            let library = TemplateLibrary(
                name: "mine", templates: [GestureTemplate(name: "circle", points: Self.circle)])
            try library.save(to: path)
            var turned = library
            turned.orientation = .invariant
            let invariant = turned
            @Sendable func stroke(_ points: [[Double]], seq: Int, stroke: Int, learn: String? = nil) throws -> [String]
            {
                var end: [String: Any] = ["type": "end", "seq": seq + 1, "stroke": stroke]
                if let learn { end["learn"] = learn }
                return try [["type": "begin", "seq": seq, "stroke": stroke, "points": points] as [String: Any], end].map
                {
                    String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self)
                }
            }
            let upsideDown = LearnedTemplatesTests.bolt(1).map { [400 - $0[0], 400 - $0[1], $0[2]] }
            try await Self.withLibraryWorker(path: path) { input, output, worker in
                let sent =
                    try [#"{"type": "options", "seq": 1, "library": "mine"}"#]
                    + stroke(LearnedTemplatesTests.bolt(0), seq: 2, stroke: 1, learn: "bolt")
                    + stroke(upsideDown, seq: 4, stroke: 2)
                let before = try await withClient(input: input, output: output) { client in
                    for message in sent { try client.send(session: "learner", message) }
                    return try client.events(2).map { "\($0.event["event"]!) \($0.event["name"] ?? "-")" }
                }
                #expect(before[0] == "learned bolt")
                #expect(before[1] != "match bolt", "orientation-sensitive: a Z upside down is not the Z")
                try invariant.save(to: path)
                #expect(worker.reloadLibraries())
                let after = try await withClient(input: input, output: output) { client in
                    for message in try stroke(upsideDown, seq: 6, stroke: 3) {
                        try client.send(session: "learner", message)
                    }
                    return try client.events(1).map { "\($0.event["event"]!) \($0.event["name"] ?? "-")" }
                }
                #expect(after == ["match bolt"])
            }
        }
    }

    @Test("a library of no templates is warned of when the worker starts, by name; the others are not")
    func emptyLibraryAtStart() throws {
        var circles = TemplateLibrary(name: "circles")
        circles.add(GestureTemplate(name: "circle", points: Self.circle))
        let registry = try LibraryRegistry([try TemplateLibrary.builtIn(), TemplateLibrary(name: "spells"), circles])
        #expect(
            registry.emptyLibraryWarnings == [
                "template library \"spells\" holds no templates: its sessions match only the gestures they learn"
            ])
        #expect(try LibraryRegistry([try TemplateLibrary.builtIn(), circles]).emptyLibraryWarnings.isEmpty)
    }
}
