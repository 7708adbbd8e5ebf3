import Foundation
import StrokeProtocol
import StrokeRecognition
import StrokeWorker

// MARK: - Files the worker reads

extension FuzzTarget {
    /// Reads `data` as a template library. One that loads must save and load back as the same library, and
    /// recognize a stroke. Text that Foundation's `JSONDecoder` reads (as the library, the checkmark tuning and
    /// strokes files were read before the strict check of files people edit) may be refused by that check only for
    /// what the check is for (`JSONReader.documentError(in:)`).
    static func library(_ data: Data) {
        // Of text whose value is an object or an array, as every such file's is, and without a NUL byte, which no
        // JSON text has: Foundation takes some text with NULs, `1\0` followed by anything as 1 and `[\0]\0` as [].
        let text = data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data[...]
        let first = text.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        if first == UInt8(ascii: "{") || first == UInt8(ascii: "["), !data.contains(0),
            let error = data.withUnsafeBytes({ JSONReader.documentError(in: $0) }),
            (try? JSONDecoder().decode(AnyJSON.self, from: data)) != nil,
            !["a comma after the last", "a second time in one object", "nesting deeper", "beyond a double's range"]
                .contains(where: { error.expected.contains($0) })
        {
            fail("the strict check refused JSON that Foundation reads: \(error)")
        }
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

/// Any JSON value, read by `JSONDecoder` and thrown away: what Foundation's decoder takes as JSON.
private struct AnyJSON: Decodable {
    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        if var array = try? decoder.unkeyedContainer() {
            while !array.isAtEnd { _ = try array.decode(AnyJSON.self) }
        } else if let object = try? decoder.container(keyedBy: Key.self) {
            for key in object.allKeys { _ = try object.decode(AnyJSON.self, forKey: key) }
        } else {
            let value = try decoder.singleValueContainer()
            guard !value.decodeNil(), (try? value.decode(Bool.self)) == nil, (try? value.decode(Double.self)) == nil
            else { return }
            _ = try value.decode(String.self)
        }
    }
}
