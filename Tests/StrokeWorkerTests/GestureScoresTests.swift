import Foundation
import StrokeProtocol
import StrokeRecognition
import Testing

@testable import StrokeWorker

/// A session's scores of gestures of their own (`options` with `gestureScores`): the highest of a gesture's score,
/// its library's threshold for it and the session's `minimumScore` applies.
@Suite("Session processor: a session's gestureScores option")
struct GestureScoresTests {
    typealias Processor = MinimumScoreTests.Processor
    typealias Producer = LearnedTemplatesTests.Producer

    @Test("a gesture's own score turns its strokes away, not the other gestures'; {} drops it")
    func oneGesture() throws {
        var processor = SessionProcessorTests.processor()
        var a = Producer("a")
        var bystander = Producer("b")
        let arrow = TiltFollowingTests.stroke("arrow", index: 0, turnedBy: 0)
        a.draw(&processor, MinimumScoreTests.check)
        a.draw(&processor, arrow)
        let before = MinimumScoreTests.results(processor, "a")
        #expect(before.count == 2 && before[0].hasPrefix("check ") && before[1].hasPrefix("arrow "))
        a.send(&processor, ["type": "options", "gestureScores": ["check": 0.99]])
        a.draw(&processor, MinimumScoreTests.check)
        a.draw(&processor, arrow)
        bystander.draw(&processor, MinimumScoreTests.check)
        a.send(&processor, ["type": "options", "gestureScores": [String: Double]()])
        a.draw(&processor, MinimumScoreTests.check)
        #expect(
            MinimumScoreTests.results(processor, "a") == before + ["nomatch below_threshold", before[1], before[0]])
        #expect(MinimumScoreTests.results(processor, "b") == [before[0]])
        #expect(processor.core.gestureScores.isEmpty)
    }

    @Test("the highest of the gesture's score, its library's and the session's minimumScore applies")
    func highestApplies() throws {
        // The library asks 0.9 of checks: the session's 0.5 for them changes nothing.
        var strict = try MinimumScoreTests.processor(copyNamed: "strict") { $0.gestureMinimumScores["check"] = 0.9 }
        var a = Producer("a")
        a.send(&strict, ["type": "options", "library": "strict", "gestureScores": ["check": 0.5]])
        a.draw(&strict, MinimumScoreTests.check)
        #expect(MinimumScoreTests.results(strict, "a") == ["nomatch below_threshold"])
        // The session's minimumScore 0.9 applies to checks whose own score is 0.5.
        var processor = SessionProcessorTests.processor()
        var b = Producer("b")
        b.send(&processor, ["type": "options", "minimumScore": 0.9, "gestureScores": ["check": 0.5]])
        b.draw(&processor, MinimumScoreTests.check)
        #expect(MinimumScoreTests.results(processor, "b") == ["nomatch below_threshold"])
    }

    @Test("a session's gesture scores answer as a copy of its library with those thresholds, stroke for stroke")
    func sameAsALibraryWithThem() throws {
        let scores = ["check": 0.85, "circle": 0.8, "v": 0.75, "question_mark": 0.8]
        var processor = try MinimumScoreTests.processor(copyNamed: "strict") { library in
            for (name, score) in scores {
                library.gestureMinimumScores[name] = max(library.gestureMinimumScores[name] ?? 0, score)
            }
        }
        var own = Producer("own")
        var copy = Producer("copy")
        own.send(&processor, ["type": "options", "gestureScores": scores])
        copy.send(&processor, ["type": "options", "library": "strict"])
        #expect(MinimumScoreTests.logs.count >= 80)
        for log in MinimumScoreTests.logs {
            let points = log.points.map { [$0.x, $0.y, $0.time] }
            own.draw(&processor, points)
            copy.draw(&processor, points)
        }
        let answers = MinimumScoreTests.results(processor, "own")
        #expect(
            answers.count == MinimumScoreTests.logs.count && answers == MinimumScoreTests.results(processor, "copy"))
        let turnedAway = answers.filter { $0.hasPrefix("nomatch") }.count
        #expect(turnedAway > 0 && turnedAway < answers.count / 4)
    }

    @Test("it applies to the session's learned gestures, and to a stroke recognized off the lane")
    func learnedAndOffloaded() throws {
        var processor = SessionProcessorTests.processor()
        var wizard = Producer("wizard")
        wizard.draw(&processor, LearnedTemplatesTests.bolt(0), learn: "bolt")
        wizard.send(&processor, ["type": "options", "gestureScores": ["bolt": 0.99]])
        wizard.draw(&processor, LearnedTemplatesTests.bolt(1))
        wizard.send(&processor, ["type": "options", "gestureScores": ["bolt": 0]])
        wizard.draw(&processor, LearnedTemplatesTests.bolt(1))
        let results = MinimumScoreTests.results(processor, "wizard")
        #expect(results.count == 2 && results[0] == "nomatch below_threshold" && results[1].hasPrefix("bolt "))
        #expect(processor.core.gestureScores.isEmpty, "only zeros drop them")

        // Carried by a batch to a helper thread, the request keeps its scores.
        let outcomes = ([nil, ["check": 0.999], ["v": 0.999]] as [[String: Double]?]).map {
            MinimumScoreTests.offloadedCheck(gestureScores: $0)
        }
        #expect(outcomes == [.match, .noMatch, .match])
    }

    @Test("kept in a snapshot, a checkpoint and the state file, restored; dropped when the producer starts over")
    func keptAndDropped() throws {
        var processor = SessionProcessorTests.processor()
        var a = Producer("a")
        var b = Producer("b")
        a.send(&processor, ["type": "options", "gestureScores": ["check": 0.99, "fire ❄": 0.7]])
        b.send(&processor, ["type": "options", "gestureScores": ["v": 0.9]])
        let snapshots = processor.snapshot()
        #expect(snapshots.first { $0.session == "a" }?.gestureScores == ["check": 0.99, "fire ❄": 0.7])
        #expect(processor.checkpoint().map(\.session).sorted() == ["a", "b"])
        // Through the state file's own writer and reader.
        let path = SessionSnapshotTests.temporaryPath("gesture-scores")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try StateFile.write(StateFile.Saved(sessions: snapshots, isCheckpoint: false), to: path)
        let read = try #require(try StateFile.read(path))
        #expect(read.sessions.sorted { $0.session < $1.session } == snapshots.sorted { $0.session < $1.session })
        var restored = SessionProcessorTests.processor()
        #expect(restored.restore(read.sessions).restored == 2)
        var resumed = Producer("a")
        resumed.sequence = try #require(snapshots.first { $0.session == "a" }?.seq)
        resumed.draw(&restored, MinimumScoreTests.check)
        #expect(MinimumScoreTests.results(restored, "a") == ["nomatch below_threshold"])
        // A snapshot with a score out of range, or a name no gesture may have, is left out, and says why.
        for scores in [["check": 1.5], ["*": 0.5]] {
            let bad = SessionSnapshot(session: "d", seq: 1, eventSeq: 0, library: "default", gestureScores: scores)
            #expect(restored.restore([bad]).skipped.first?.contains("gestureScores") == true, "\(scores)")
        }

        // The producer starts over (seq 1): the library's thresholds again.
        a.draw(&processor, MinimumScoreTests.check)
        var again = Producer("a")
        again.draw(&processor, MinimumScoreTests.check)
        let results = MinimumScoreTests.results(processor, "a")
        #expect(results.count == 2 && results[0] == "nomatch below_threshold" && results[1].hasPrefix("check "))
        b.send(&processor, ["type": "close"])
        #expect(processor.core.gestureScores.isEmpty)
    }

    @Test("sessions that set the same scores share one copy; the lane forgets the scores no session holds")
    func shared() {
        var processor = SessionProcessorTests.processor()
        var producers = (0..<200).map { Producer("p\($0)") }
        for index in 0..<3 {
            producers[index].send(&processor, ["type": "options", "gestureScores": ["fire": 0.75, "check": 0.5]])
        }
        #expect(processor.core.gestureScores.count == 3 && processor.core.scorePool.count == 1)
        // One dictionary's storage, held by the three sessions and the pool.
        let storages = Set(
            processor.core.gestureScores.values.map { ObjectIdentifier(unsafeBitCast($0, to: AnyObject.self)) })
        #expect(storages.count == 1)
        // A hundred sessions with scores of their own, then none, then a hundred others: what is pooled is held.
        for index in 0..<100 {
            producers[index].send(
                &processor, ["type": "options", "gestureScores": ["fire": 0.5 + Double(index) / 1000]])
        }
        for index in 0..<100 {
            producers[index].send(&processor, ["type": "options", "gestureScores": [String: Double]()])
        }
        for index in 100..<200 {
            producers[index].send(
                &processor, ["type": "options", "gestureScores": ["fire": 0.2 + Double(index) / 1000]])
        }
        #expect(processor.core.gestureScores.count == 100)
        #expect(processor.core.scorePool == Set(processor.core.gestureScores.values))
    }
}
