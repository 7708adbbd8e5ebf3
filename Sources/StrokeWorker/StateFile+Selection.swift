import Foundation
import StrokeProtocol

// MARK: - Which copy of a session counts

extension StateFile {
    /// The sessions of `files` that count, file by file, among the buckets `serves` admits: each bucket's from the
    /// newest file that holds all of its sessions (`Saved.holdsAll(ofBucket:)`), none from older files. Files that
    /// name no shard (written before session 38) count only for buckets that no file names. A session listed in
    /// several files that count counts once, in the first.
    ///
    /// A worker's start uses it (`Worker.adoptSessions(own:)`, its own file first), and so does `stroke-tool state`
    /// to plan a change of the shard count on the same files.
    public static func currentSessions(of files: [Saved], servedBy serves: (Int) -> Bool) -> [[SessionSnapshot]] {
        var newest = [Date?](repeating: nil, count: ShardKey.bucketCount)
        for file in files {
            guard let savedAt = file.savedAt, file.shard != nil else { continue }
            for bucket in 0..<ShardKey.bucketCount
            where serves(bucket) && file.holdsAll(ofBucket: bucket) && newest[bucket].map({ $0 < savedAt }) ?? true {
                newest[bucket] = savedAt
            }
        }
        var seen = Set<String>()
        return files.map { file in
            file.sessions.filter { session in
                let bucket = session.bucket
                guard serves(bucket) else { return false }
                if let latest = newest[bucket] {
                    guard file.holdsAll(ofBucket: bucket), let savedAt = file.savedAt, savedAt >= latest else {
                        return false
                    }
                }
                return seen.insert(session.session).inserted
            }
        }
    }
}
