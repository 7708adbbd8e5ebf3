import Foundation
import Synchronization
import Testing

@testable import StrokeRecognition

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Reading and writing library, tuning and other files")
struct LibraryFilesTests {
    /// A new empty directory, removed after `body`.
    static func withDirectory(_ body: (String) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(directory.path)
    }

    /// The message of the error reading `path` throws, or nil where it reads.
    static func failure(_ path: String, naming name: String? = nil) -> String? {
        do {
            _ = try RecognitionError.contents(ofFile: path, naming: name)
            return nil
        } catch {
            #expect(error.code == .io)
            return error.message
        }
    }

    @Test("a regular file reads whole, an empty one and one of several chunks too")
    func regularFiles() throws {
        try Self.withDirectory { directory in
            for size in [0, 1, 65_536, 200_003] {
                let bytes = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) })
                let path = "\(directory)/file-\(size)"
                try bytes.write(to: URL(fileURLWithPath: path))
                #expect(try RecognitionError.contents(ofFile: path) == bytes, "\(size) bytes")
            }
        }
    }

    @Test("a pipe reads as a file does (a process substitution, --library <(…)), where Foundation refused it")
    func pipes() throws {
        try Self.withDirectory { directory in
            let path = "\(directory)/fifo"
            #expect(mkfifo(path, 0o600) == 0)
            let text = String(repeating: "{\"templates\": []}\n", count: 5_000)
            let writer = Thread {
                let descriptor = open(path, O_WRONLY)
                guard descriptor >= 0 else { return }
                var remaining = Array(text.utf8)[...]
                while !remaining.isEmpty {
                    let count = remaining.withUnsafeBytes { write(descriptor, $0.baseAddress!, $0.count) }
                    guard count > 0 else { break }
                    remaining = remaining.dropFirst(count)
                }
                close(descriptor)
            }
            writer.start()
            let read = try RecognitionError.contents(ofFile: path)
            #expect(read == Data(text.utf8))
        }
    }

    @Test("a file that cannot be read is named with the system's reason")
    func failures() throws {
        try Self.withDirectory { directory in
            #expect(Self.failure(directory) == "cannot read \(directory): Is a directory")
            #expect(
                Self.failure("\(directory)/missing") == "cannot read \(directory)/missing: No such file or directory")
            #expect(Self.failure(directory, naming: "the state file") == "cannot read the state file: Is a directory")
            #expect(Self.failure(directory, naming: "") == "cannot read: Is a directory")
            // A library file that is a directory says so, where Foundation said "NSCocoaErrorDomain error 256".
            #expect(throws: RecognitionError(.io, "cannot read \(directory): Is a directory")) {
                try TemplateLibrary(contentsOf: directory)
            }
        }
    }

    /// A small library to save.
    static let library: TemplateLibrary = {
        var library = TemplateLibrary(
            name: "spells", orientation: .invariant, maxRotationDegrees: 45, minimumScore: 0.7)
        library.add(GestureTemplate(name: "zap", points: [SIMD2(0, 0), SIMD2(1.5, 2), SIMD2(3, 0)]))
        return library
    }()

    @Test("saving through a symbolic link replaces the file it points to and keeps the link")
    func symbolicLinks() throws {
        try Self.withDirectory { directory in
            try FileManager.default.createDirectory(atPath: "\(directory)/real", withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(
                atPath: "\(directory)/link.json", withDestinationPath: "real/lib.json")
            try Data("old".utf8).write(to: URL(fileURLWithPath: "\(directory)/real/lib.json"))
            try Self.library.save(to: "\(directory)/link.json")
            #expect(
                try FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/link.json") == "real/lib.json")
            #expect(try TemplateLibrary(contentsOf: "\(directory)/real/lib.json") == Self.library)
            #expect(try FileManager.default.contentsOfDirectory(atPath: "\(directory)/real") == ["lib.json"])
            // A link whose target does not exist yet gets it (realpath found none, and the link was replaced).
            try FileManager.default.createSymbolicLink(
                atPath: "\(directory)/new.json", withDestinationPath: "real/new.json")
            try Self.library.save(to: "\(directory)/new.json")
            #expect(
                try FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/new.json") == "real/new.json")
            #expect(try TemplateLibrary(contentsOf: "\(directory)/real/new.json") == Self.library)
        }
    }

    @Test(
        "a library that cannot be saved names the file asked for first, then the step that failed, and leaves nothing")
    func saveFailures() throws {
        try Self.withDirectory { directory in
            let path = "\(directory)/missing/lib.json"
            let error = #expect(throws: RecognitionError.self) { try Self.library.save(to: path) }
            #expect(error?.code == .io)
            let message = error?.message ?? ""
            #expect(message.hasPrefix("cannot write \(path): create \(path).tmp-"), "\(message)")
            #expect(message.hasSuffix(": No such file or directory"), "\(message)")
            // A directory in the file's place is written into as a non-regular file is, and refused by the system.
            try FileManager.default.createDirectory(atPath: "\(directory)/dir.json", withIntermediateDirectories: true)
            let refused = #expect(throws: RecognitionError.self) { try Self.library.save(to: "\(directory)/dir.json") }
            #expect(refused?.message == "cannot write \(directory)/dir.json: Is a directory")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["dir.json"])
        }
    }

    @Test("a link's target: through chains of relative and absolute links, existing or not; a loop stops")
    func linkTargets() throws {
        try Self.withDirectory { directory in
            try FileManager.default.createDirectory(atPath: "\(directory)/a/b", withIntermediateDirectories: true)
            #expect(symlink("b/second", "\(directory)/a/first") == 0)
            #expect(symlink("\(directory)/a/end", "\(directory)/a/b/second") == 0)
            #expect(RecognitionError.linkTarget(of: "\(directory)/a/first") == "\(directory)/a/end")
            #expect(RecognitionError.linkTarget(of: "\(directory)/a/b") == "\(directory)/a/b")
            #expect(RecognitionError.linkTarget(of: "\(directory)/none") == "\(directory)/none")
            #expect(symlink("loop", "\(directory)/loop") == 0)
            #expect(RecognitionError.linkTarget(of: "\(directory)/loop") == "\(directory)/loop")
        }
    }

    @Test("a path's directory, as dirname gives it: a name of one character too, which Foundation trapped on")
    func directories() {
        for (path, directory) in [
            ("s", "."), ("0", "."), ("sessions.json", "."), ("./s", "."), ("dir/s", "dir"), ("/s", "/"), ("/", "/"),
            ("a/b/c.json", "a/b"), ("a//b", "a"), ("dir/", "."), ("/dir/s/", "/dir"), ("//s", "/"),
        ] {
            #expect(RecognitionError.directory(of: path) == directory, "\(path)")
        }
    }

    @Test("saving to a pipe writes into it and leaves it a pipe (-o /dev/stdout replaced the link, as root)")
    func savingToPipes() throws {
        try Self.withDirectory { directory in
            let path = "\(directory)/fifo"
            #expect(mkfifo(path, 0o600) == 0)
            let received = Mutex(Data())
            let reader = Thread {
                let descriptor = open(path, O_RDONLY)
                guard descriptor >= 0 else { return }
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, $0.count) }
                    guard count > 0 else { break }
                    received.withLock { $0.append(contentsOf: buffer[..<count]) }
                }
                close(descriptor)
            }
            reader.start()
            try Self.library.save(to: path)
            // A bounded wait: had the save renamed a file over the pipe, the reader would wait for a writer forever.
            let deadline = ContinuousClock.now + .seconds(10)
            while !reader.isFinished && ContinuousClock.now < deadline { usleep(1000) }
            #expect(reader.isFinished, "the pipe's reader got no end of file")
            #expect(try TemplateLibrary(json: received.withLock { $0 }, source: "the pipe") == Self.library)
            var status = stat()
            #expect(stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO)
        }
    }
}
