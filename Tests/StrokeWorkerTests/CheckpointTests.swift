import Foundation
import StrokeProtocol
import StrokeRecognition
import Testing

@testable import StrokeWorker

@Suite("Checkpoints for a worker that crashes (--checkpoint-interval)")
struct CheckpointTests {
    typealias Producer = LearnedTemplatesTests.Producer

    /// A lane where alice chose gestures and learned a bolt, carol only turned the detector off, and bob sent
    /// strokes with nothing set.
    static func taught() -> SessionProcessor<CollectingSink> {
        var processor = SessionProcessorTests.processor()
        var alice = Producer("alice")
        alice.send(&processor, ["type": "options", "gestures": ["bolt", "check"]])
        alice.draw(&processor, LearnedTemplatesTests.bolt(0), learn: "bolt")
        var bob = Producer("bob")
        bob.draw(&processor, LearnedTemplatesTests.bolt(1))
        var carol = Producer("carol")
        carol.send(&processor, ["type": "options", "checkmark": false])
        return processor
    }

    @Test("a checkpoint holds the sessions whose options or gestures differ from a new one's, without numbering")
    func checkpointHoldsChangedSessions() {
        let processor = Self.taught()
        let checkpoint = processor.checkpoint().sorted { $0.session < $1.session }
        #expect(checkpoint.map(\.session) == ["alice", "carol"], "bob has nothing a new session lacks")
        #expect(checkpoint.allSatisfy { $0.seq == nil && $0.eventSeq == 0 })
        #expect(checkpoint[0].gestures == ["bolt", "check"] && checkpoint[0].learned?.map(\.name) == ["bolt"])
        #expect(checkpoint[1].checkmark == false && checkpoint[1].learned == nil)
        // A new session's defaults come from the worker's: with the detector off by default, carol's is one.
        var quiet = SessionProcessorTests.processor { $0.checkmarkByDefault = false }
        var carol = Producer("carol")
        carol.send(&quiet, ["type": "options", "checkmark": false])
        #expect(quiet.checkpoint().isEmpty)
    }

    @Test("restored from a checkpoint, a session's next message is a session_reset that says what was kept")
    func restoredSessionIsReset() throws {
        var after = SessionProcessorTests.processor()
        let report = after.restore(Self.taught().checkpoint())
        #expect(report.restored == 2 && report.skipped.isEmpty)
        #expect(after.checkpoint().count == 2, "kept in the next checkpoint before their first message too")

        // Alice goes on from seq 9: strokes in flight were lost, her choice and learned bolt were not.
        var alice = Producer("alice")
        alice.sequence = 8
        alice.draw(&after, LearnedTemplatesTests.bolt(2))
        let events = SessionProcessorTests.events(after).map(\.payload)
        #expect(events.count == 2, "\(events)")
        let reset = try #require(events.first)
        #expect(reset["code"] as? String == "session_reset" && reset["restored"] as? Bool == true)
        #expect(reset["eventSeq"] as? Int == 1 && reset["seq"] as? Int == 9, "numbered from 1 again")
        #expect((reset["message"] as? String)?.contains("1 learned template as of") == true)
        let match = try #require(events.last)
        #expect(match["event"] as? String == "match" && match["name"] as? String == "bolt")
        #expect(match["learned"] as? Bool == true && match["eventSeq"] as? Int == 2)
        // Later messages number on as usual.
        alice.draw(&after, LearnedTemplatesTests.bolt(3))
        #expect(SessionProcessorTests.events(after).count == 3)
    }

    @Test("stopped gracefully before its first message, a session that came back from a checkpoint still says so")
    func stoppedBeforeItsFirstMessage() throws {
        var first = SessionProcessorTests.processor()
        _ = first.restore(Self.taught().checkpoint())
        // The graceful stop's file: alice has had no message since, so her numbering is still not known.
        let saved = first.snapshot().first { $0.session == "alice" }
        #expect(saved?.seq == nil && saved?.eventSeq == 0)
        var second = SessionProcessorTests.processor()
        _ = second.restore(first.snapshot())
        var alice = Producer("alice")
        alice.sequence = 20
        alice.draw(&second, LearnedTemplatesTests.bolt(2))
        let reset = try #require(SessionProcessorTests.events(second).first?.payload)
        #expect(reset["code"] as? String == "session_reset" && reset["restored"] as? Bool == true)
    }

    @Test("restored from a checkpoint, a session whose producer started over too goes back to its defaults")
    func producerStartedOverToo() throws {
        var after = SessionProcessorTests.processor()
        _ = after.restore(Self.taught().checkpoint())
        #expect(LearnedTemplatesTests.learnedCount(after) == 1)
        var alice = Producer("alice")
        alice.draw(&after, LearnedTemplatesTests.bolt(2))
        let events = SessionProcessorTests.events(after).map(\.payload)
        let restart = try #require(events.first)
        #expect(restart["code"] as? String == "session_restart" && restart["restored"] == nil)
        #expect((restart["message"] as? String)?.contains("1 learned template forgotten") == true, "\(restart)")
        #expect(LearnedTemplatesTests.learnedCount(after) == 0)
        #expect(events.last?["event"] as? String != "match" || events.last?["learned"] == nil)
        #expect(after.checkpoint().map(\.session) == ["carol"])
    }

    @Test("the changes a lane hands over in parts, merged, always equal its whole checkpoint", arguments: [1, 2, 3])
    func changesAddUpToTheCheckpoint(seed: UInt64) throws {
        let registry = try LibraryRegistry([try TemplateLibrary.builtIn(), TemplateLibrary(name: "none")])
        var configuration = WorkerConfiguration()
        configuration.stateFile = "/unused/state.json"
        configuration.idleTimeoutSeconds = 5
        var processor = SessionProcessor(
            sink: CollectingSink(), configuration: configuration, registry: registry, metrics: WorkerMetrics())
        var producers = (0..<12).map { Producer("p\($0)") }
        var merged = Dictionary(uniqueKeysWithValues: processor.checkpoint().map { ($0.session, $0) })
        var random = SeededGenerator(seed: seed)
        var merges = 0
        for step in 0..<600 {
            let who = Int.random(in: 0..<producers.count, using: &random)
            switch Int.random(in: 0..<10, using: &random) {
            case 0:
                producers[who].send(
                    &processor, ["type": "options", "library": ["default", "none"].randomElement(using: &random)!])
            case 1: producers[who].send(&processor, ["type": "options", "checkmark": Bool.random(using: &random)])
            case 2:
                producers[who].send(
                    &processor, ["type": "options", "gestures": Bool.random(using: &random) ? "*" : ["bolt"]])
            case 3: producers[who].send(&processor, ["type": "options", "forget": "*"])
            case 4: producers[who].draw(&processor, LearnedTemplatesTests.bolt(step), learn: "bolt")
            case 5: producers[who].send(&processor, ["type": "close"])
            case 6:
                producers[who].sequence = 0  // the producer starts over: session_restart
                producers[who].send(&processor, ["type": "options", "orientation": "invariant"])
            case 7:
                processor.now += UInt32.random(in: 0...3, using: &random)
                processor.evictIdle()
            default: producers[who].draw(&processor, LearnedTemplatesTests.bolt(step))
            }
            if Int.random(in: 0..<8, using: &random) == 0 || step == 599 {
                // In parts of a few sessions, as a lane hands over a burst of changes.
                repeat {
                    let changes = processor.checkpointChanges(limit: Int(seed) * 2)
                    #expect(changes.changed.count + changes.removed.count <= Int(seed) * 2)
                    for session in changes.changed { merged[session.session] = session }
                    for id in changes.removed { merged[id] = nil }
                } while processor.hasCheckpointChanges
                let whole = processor.checkpoint().sorted { $0.session < $1.session }
                #expect(merged.values.sorted { $0.session < $1.session } == whole, "step \(step)")
                merges += 1
            }
        }
        #expect(merges > 50 && !merged.isEmpty && processor.checkpointChanges().isEmpty)
        // Without checkpoints, nothing is tracked.
        var untracked = SessionProcessorTests.processor()
        producers[0].send(&untracked, ["type": "options", "checkmark": false])
        #expect(untracked.checkpointChanges().isEmpty && untracked.checkpoint().count == 1)
    }

    @Test("a graceful stop's file restores the numbering; only a checkpoint's sessions are reset")
    func numberingOnlyFromAGracefulStop() {
        var tracker = SequenceTracker.afterCheckpoint()
        #expect(tracker.receive(1) == .acceptAfterCheckpoint(sequence: 1))
        #expect(tracker.receive(2) == .accept)
        #expect(tracker.receive(1) == .restart(last: 2), "once only")
        var later = SequenceTracker.afterCheckpoint()
        #expect(later.receive(40) == .acceptAfterCheckpoint(sequence: 40))
        #expect(later.receive(42) == .acceptAfterGap(expected: 41, missing: 1))
        var fresh = SequenceTracker()
        #expect(fresh.receive(1) == .accept)
    }
}
