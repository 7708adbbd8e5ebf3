import Foundation
import StrokeRecognition
import StrokeWorker
import ZeroMQ

/// `stroke-tool keygen`: a new CURVE key pair for `--curve-secret-key` and its peers.
enum KeygenCommand {
    static let usage = """
        USAGE
          stroke-tool keygen [-o PREFIX]
              Makes a CURVE key pair. Without -o, prints both keys. With -o, writes PREFIX.key (the secret key,
              readable by its owner only: give it to one worker or proxy with --curve-secret-key, or to one
              client) and PREFIX.pub (the public key: give it to the peers, as --curve-server-key or as a line
              of a --curve-authorized-keys file). Existing files are not overwritten.
        """

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try StrokeTool.parse(arguments, flags: [], known: ["output"])
        if args.flag("help") {
            print(usage)
            return 0
        }
        let keys = try ZMQCurveKeyPair.generate()
        let secret = """
            # CURVE secret key (stroke-tool keygen): keep it private
            public-key = "\(keys.publicKey)"
            secret-key = "\(keys.secretKey)"

            """
        let publicText = """
            # CURVE public key (stroke-tool keygen): give it to peers
            \(keys.publicKey)

            """
        guard let prefix = args.value("output") else {
            print("public-key = \"\(keys.publicKey)\"\nsecret-key = \"\(keys.secretKey)\"")
            return 0
        }
        // An empty PREFIX, or a directory's (`keys/`), wrote hidden files named `.key` and `.pub`.
        guard !prefix.isEmpty, !prefix.hasSuffix("/") else {
            throw CommandLineArguments.Failure(
                description:
                    "-o: a file name to write PREFIX.key and PREFIX.pub under, as keys/worker, got \"\(prefix)\"")
        }
        try write(secret, to: prefix + ".key", permissions: 0o600)
        do {
            try write(publicText, to: prefix + ".pub", permissions: 0o644)
        } catch {
            // Half a pair helps no one, and the new .key would make the next try fail too: take it back.
            unlink(prefix + ".key")
            throw error
        }
        print("wrote \(prefix).key (secret) and \(prefix).pub (public key \(keys.publicKey))")
        return 0
    }

    /// Creates `path` with `permissions` from the start (the secret is never readable by others, not even
    /// briefly); fails if it exists, and removes what it created if the write fails. Its errors are I/O errors
    /// (exit status 1, as every command's; before session 86 they were usage errors, 2).
    private static func write(_ text: String, to path: String, permissions: mode_t) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, permissions)
        guard descriptor >= 0 else {
            throw RecognitionError(.io, "cannot create \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else {
            let reason = String(cString: strerror(errno))
            unlink(path)
            throw RecognitionError(.io, "cannot write \(path): \(reason)")
        }
    }
}
