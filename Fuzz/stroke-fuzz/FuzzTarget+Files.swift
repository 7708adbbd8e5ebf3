import Foundation
import StrokeProtocol
import StrokeRecognition
import StrokeWorker

// MARK: - Files the worker reads

extension FuzzTarget {
    /// Reads `data` as a template library. One that loads must save and load back as the same library, and
    /// recognize a stroke.
    static func library(_ data: Data) {
        guard let library = try? TemplateLibrary(json: data, source: "fuzz") else { return }
        let saved: Data
        do {
            saved = try library.jsonData()
        } catch {
            fail("a library that loaded cannot be saved: \(error)")
        }
        do {
            let again = try TemplateLibrary(json: saved, source: "fuzz (saved)")
            if again != library { fail("a library saved and loaded back differs") }
        } catch {
            fail("a library that loaded, saved, does not load back: \(error)")
        }
        // As a worker loads it (both orientations), then as `stroke-tool recognize` matches a stroke against it.
        guard (try? LibraryRegistry([library])) != nil, let recognizer = try? Recognizer(library: library) else {
            return
        }
        _ = try? recognizer.recognize(points: FuzzFixtures.shared.check.map { SIMD2($0.x, $0.y) })
    }

    /// Reads `data` as a state file. Its sessions, restored into a processor, must leave a bystander's check
    /// answered; and what the processor then holds, written as a state file, must read back the same (a worker
    /// that restored a file writes its sessions at its next stop, and reads them at its next start).
    static func state(_ data: Data) {
        guard let saved = try? StateFile.read(data, source: "fuzz") else { return }
        var processor = makeProcessor()
        _ = processor.restore(saved.sessions)
        expectWrittenAndReadBack(processor)
        expectBystanderAnswered(&processor)
    }

    /// Stops the run unless the sessions `processor` holds, written as a state file, read back the same.
    static func expectWrittenAndReadBack(_ processor: SessionProcessor<CollectingSink>) {
        let held = StateFile.Saved(sessions: processor.snapshot())
        do {
            let again = try StateFile.read(Data(StateFile.encode(held)), source: "fuzz (written)")
            guard again.sessions != held.sessions else { return }
            let first = zip(again.sessions, held.sessions).first { $0 != $1 }
            fail("sessions written and read back differ: \(first.map { "\($0.1) read as \($0.0)" } ?? "a count")")
        } catch {
            fail("sessions written as a state file do not read back: \(error)")
        }
    }

    /// Reads `data` as a checkmark tuning, as `--checkmark-config` does. One that is valid runs a detector over a
    /// check.
    static func checkmark(_ data: Data) {
        guard let configuration = try? JSONDecoder().decode(CheckmarkConfiguration.self, from: data),
            (try? configuration.validate()) != nil
        else { return }
        var detector = CheckmarkDetector(configuration: configuration)
        _ = detector.add(contentsOf: FuzzFixtures.shared.check)
    }
}
