import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension RecognitionError {
    // MARK: - Reading files

    /// Largest file `contents(ofFile:naming:)` reads: 1 GiB, ten times a state file of a million sessions with
    /// the most learned templates a worker holds.
    public static let largestFile = 1 << 30

    /// The bytes of the file at `path`, for the readers of library, tuning, stroke, key and state files.
    ///
    /// Read with `open` and `read`, so that a pipe or a process substitution (`--library <(curl …)`, `/dev/fd/63`)
    /// and `/dev/stdin` read as files do, where Foundation's `Data(contentsOf:)` refused anything but a regular file
    /// with "You don't have permission", and so that the reason is the system's (`Is a directory`, `No such file or
    /// directory`) where Foundation said "NSCocoaErrorDomain error 256".
    ///
    /// - Throws: `.io`: `cannot read NAME: REASON`, NAME being `name` or else the path; an empty `name` leaves it
    ///   out (`cannot read: REASON`), for a caller that names the file itself.
    public static func contents(ofFile path: String, naming name: String? = nil) throws(RecognitionError) -> Data {
        func failure(_ reason: String) -> RecognitionError {
            let name = name ?? path
            return RecognitionError(.io, "cannot read\(name.isEmpty ? "" : " " + name): \(reason)")
        }
        func failure(errno number: Int32) -> RecognitionError { failure(String(cString: strerror(number))) }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(errno: errno) }
        defer { close(descriptor) }
        let chunk = 1 << 16
        var status = stat()
        var bytes = [UInt8]()
        if fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_size > 0 {
            // Room for the file and the chunk that finds its end: read in place, never copied to grow.
            bytes.reserveCapacity(min(Int(status.st_size), largestFile) + chunk)
        }
        while true {
            let start = bytes.count
            bytes.append(contentsOf: repeatElement(0, count: chunk))
            let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + start, chunk) }
            if count < 0 && errno == EINTR {
                bytes.removeLast(chunk)
                continue
            }
            guard count >= 0 else { throw failure(errno: errno) }
            bytes.removeLast(chunk - count)
            if count == 0 { break }
            guard bytes.count <= largestFile else { throw failure("larger than \(largestFile >> 20) MiB") }
        }
        return Data(bytes)
    }

    /// The path a write to `path` should replace: through symbolic links (at most 40, as the system follows),
    /// their last target, whether or not it exists yet; `path` itself where it is no link. Writers that rename a new
    /// file over a path replace this one, so that a link stays a link and the file lands where it points.
    public static func linkTarget(of path: String) -> String {
        var current = path
        for _ in 0..<40 {
            var status = stat()
            guard lstat(current, &status) == 0, status.st_mode & S_IFMT == S_IFLNK else { return current }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink(current, &buffer, buffer.count - 1)
            guard count > 0 else { return current }
            let destination = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let relative = !destination.hasPrefix("/") && current.contains("/")
            current = relative ? directory(of: current) + "/" + destination : destination
        }
        return current
    }

    /// The directory that holds `path`, as `dirname` gives it: `.` for a name alone, `/` for a name in the root.
    /// Foundation's `NSString.deletingLastPathComponent` (Swift 6.3.1, Linux) traps on a name of one character: the
    /// worker given `--state-file s` crashed at its first checkpoint, and at its stop (before session 87).
    public static func directory(of path: String) -> String {
        let trimmed = withoutTrailingSlashes(path)
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        let head = withoutTrailingSlashes(trimmed[..<slash])
        return head.isEmpty ? "/" : String(head)
    }

    /// `path` without the slashes that end it, but for a path of slashes alone, which keeps one (`/`).
    public static func withoutTrailingSlashes<Path: StringProtocol>(_ path: Path) -> Path.SubSequence {
        var trimmed = path[...]
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        return trimmed
    }

    /// What `path` is where it exists and is not a regular file (after symbolic links): `a directory`, `a pipe`,
    /// `a character device`…; nil for a regular file or none. The writers of files ask it before they rename one
    /// over a path, which would put a regular file in a device's or a pipe's place.
    public static func nonRegularKind(of path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        switch status.st_mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return "a directory"
        case S_IFIFO: return "a pipe"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFSOCK: return "a socket"
        default: return "no regular file"
        }
    }

    /// Writes all of `data` to the open descriptor `fd`, in as many `write` calls as it takes; what went wrong
    /// (`write NAME: REASON`), or nil. The library writer and `stroke-bench`'s trace share it.
    public static func write(_ data: Data, to fd: Int32, named name: String) -> String? {
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Foundation.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return "write \(name): \(String(cString: strerror(errno)))"
                }
                offset += written
            }
            return nil
        }
    }
}
