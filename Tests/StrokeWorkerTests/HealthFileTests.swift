import Foundation
import StrokeRecognition
import Testing

@testable import StrokeWorker

#if canImport(Glibc)
    import Glibc
#endif

@Suite("the health file (--health-file)")
struct HealthFileTests {
    /// A new directory of its own, removed after `body`.
    static func withDirectory(_ body: (String) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("health-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(directory.path)
    }

    /// The file's modification time in nanoseconds since 1970, or nil where it cannot be read.
    static func modified(_ path: String) -> Int? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return status.st_mtim.tv_sec * 1_000_000_000 + status.st_mtim.tv_nsec
    }

    @Test("a missing file is created with \"ok\", an existing one keeps its contents and gets a new time")
    func createsAndTouches() throws {
        try Self.withDirectory { (directory: String) throws in
            let path = directory + "/healthy"
            #expect(WorkerControl.touch(path) == nil)
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "ok\n")
            try Data("mine\n".utf8).write(to: URL(fileURLWithPath: path))
            let old = timespec(tv_sec: 1_000_000_000, tv_nsec: 0)
            #expect(utimensat(AT_FDCWD, path, [old, old], 0) == 0)
            #expect(WorkerControl.touch(path) == nil)
            #expect((Self.modified(path) ?? 0) > 1_000_000_000 * 1_000_000_000)
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "mine\n")
        }
    }

    @Test("a symbolic link whose target does not exist gets its target, and stays a link")
    func danglingLink() throws {
        try Self.withDirectory { (directory: String) throws in
            let (link, target) = (directory + "/link", directory + "/target")
            #expect(symlink(target, link) == 0)
            #expect(WorkerControl.touch(link) == nil)
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
            #expect(try String(contentsOfFile: target, encoding: .utf8) == "ok\n")
        }
    }

    @Test("a beat reports the first failure, stays quiet while it lasts, and reports the recovery")
    func beatReportsChanges() throws {
        try Self.withDirectory { (directory: String) throws in
            let control = WorkerControl()
            let path = directory + "/later/healthy"
            #expect(control.beat(healthFile: path) == .failing("No such file or directory"))
            #expect(control.beat(healthFile: path) == nil)
            try FileManager.default.createDirectory(atPath: directory + "/later", withIntermediateDirectories: false)
            #expect(control.beat(healthFile: path) == .touchedAgain)
            #expect(control.beat(healthFile: path) == nil)
            #expect(FileManager.default.fileExists(atPath: path))
            #expect(control.beat(healthFile: nil) == nil)
        }
    }

    @Test("a worker whose health file cannot be created, or is no regular file, does not start")
    func refusedAtTheStart() throws {
        try Self.withDirectory { (directory: String) throws in
            var configuration = WorkerConfiguration()
            configuration.healthFile = directory + "/missing/healthy"
            #expect {
                _ = try Worker(configuration: configuration)
            } throws: { error in
                "\(error)".contains("--health-file \(directory)/missing/healthy: No such file or directory")
            }
            configuration.healthFile = directory
            #expect {
                try configuration.validate()
            } throws: { error in
                "\(error)".contains("--health-file \(directory): it is a directory; a health file is a regular file")
            }
            #expect(!FileManager.default.fileExists(atPath: directory + "/missing"))
        }
    }
}
