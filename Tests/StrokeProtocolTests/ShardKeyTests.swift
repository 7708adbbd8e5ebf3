import Foundation
import Testing

@testable import StrokeProtocol

@Suite("Shard keys and topics")
struct ShardKeyTests {
    @Test("the vectors in Protocol/vectors/shard-keys.json")
    func vectors() throws {
        let file = try ProtocolVectors.load("shard-keys.json")
        let vectors = file["vectors"] as! [[String: Any]]
        #expect(vectors.count >= 5)
        for vector in vectors {
            let session = vector["session"] as! String
            let hash = Array(session.utf8).withUnsafeBytes { ShardKey.fnv1a($0) }
            #expect(String(format: "0x%08x", hash) == vector["fnv1a"] as! String)
            #expect(ShardKey.bucket(of: session) == vector["bucket"] as! Int)
            #expect(ShardKey.topic(for: session) == vector["topic"] as! String)
            let topic = Array((vector["topic"] as! String).utf8)
            let range = try topic.withUnsafeBytes { try ShardKey.sessionID(inTopic: $0) }
            #expect(Array(topic[range]) == Array(session.utf8))
        }
        for prefixes in file["shardPrefixes"] as! [[String: Any]] {
            let parts = (prefixes["shard"] as! String).split(separator: "/").map { Int($0)! }
            let actual = ShardKey.subscriptionPrefixes(shard: parts[0], of: parts[1])
            #expect(actual.count == prefixes["count"] as! Int)
            #expect(Array(actual.prefix(3)) == prefixes["first"] as! [String])
        }
    }

    @Test("every bucket belongs to exactly one shard", arguments: [1, 2, 3, 7, 100])
    func partition(count: Int) {
        var seen = [Int](repeating: 0, count: ShardKey.bucketCount)
        for shard in 0..<count where count > 1 {
            for prefix in ShardKey.subscriptionPrefixes(shard: shard, of: count) {
                seen[Int(prefix.prefix(3), radix: 16)!] += 1
            }
        }
        if count > 1 { #expect(seen.allSatisfy { $0 == 1 }) }
    }

    @Test("malformed topics are rejected with bad_topic")
    func malformed() {
        for topic in ["", "abc", "abc/", "ABC/x", "zzz/x", "000/player-1", "712/player-1\u{1}"] {
            #expect(throws: ProtocolError.self) {
                _ = try Array(topic.utf8).withUnsafeBytes { try ShardKey.sessionID(inTopic: $0) }
            }
        }
        // Control characters and DEL, and a `$` first (the worker's own topics, `$system`), behind a shard key
        // that matches (so only the character is wrong).
        for session in ["player-1\u{1}", "tab\there", "del\u{7F}", "$system", "$x"] {
            #expect(throws: ProtocolError.self) {
                _ = try Array(ShardKey.topic(for: session).utf8).withUnsafeBytes { try ShardKey.sessionID(inTopic: $0) }
            }
        }
        let long = ShardKey.topic(for: String(repeating: "y", count: 129))
        #expect(throws: ProtocolError.self) {
            _ = try Array(long.utf8).withUnsafeBytes { try ShardKey.sessionID(inTopic: $0) }
        }
        var invalidUTF8 = Array("000/".utf8) + [0xFF, 0xFE]
        let bucket = ShardKey.key(ofBucket: [UInt8]([0xFF, 0xFE]).withUnsafeBytes { ShardKey.bucket(of: $0) })
        invalidUTF8.replaceSubrange(0..<3, with: Array(bucket.utf8))
        #expect(throws: ProtocolError.self) {
            _ = try invalidUTF8.withUnsafeBytes { try ShardKey.sessionID(inTopic: $0) }
        }
    }

    @Test("splitting a topic unchecked refuses only topics the check refuses, and finds the id the check finds")
    func uncheckedSplit() throws {
        let shapes = [
            "", "abc", "abc/", "abcd", "ab/x", "abc/x", "ABC/x", "000/player-1", "712/player-1\u{1}",
            ShardKey.topic(for: "player-1"), ShardKey.topic(for: String(repeating: "y", count: 128)),
            ShardKey.topic(for: String(repeating: "y", count: 129)), "abc/" + String(repeating: "z", count: 129),
        ]
        for topic in shapes {
            let bytes = Array(topic.utf8)
            let split = bytes.withUnsafeBytes { ShardKey.sessionIDRange(unchecked: $0) }
            let checked = try? bytes.withUnsafeBytes { try ShardKey.sessionID(inTopic: $0) }
            if split == nil { #expect(checked == nil, "\(topic)") }
            if let checked { #expect(split == checked, "\(topic)") }
        }
        // Of the right shape but refused by the check: the split leaves the shard key and the id to it.
        #expect(Array("ABC/x".utf8).withUnsafeBytes { ShardKey.sessionIDRange(unchecked: $0) } == 4..<5)
    }

    @Test("non-ASCII UTF-8 session ids are accepted")
    func unicode() throws {
        for session in ["joueur-é", "玩家-7", "🙂", "x" + String(repeating: "ü", count: 63)] {
            let topic = Array(ShardKey.topic(for: session).utf8)
            let range = try topic.withUnsafeBytes { try ShardKey.sessionID(inTopic: $0) }
            #expect(Array(topic[range]) == Array(session.utf8))
        }
    }

    @Test("subscription coverage: everything at once, or every shard's prefixes; an unsubscription takes its own away")
    func coverage() {
        var single = ShardKey.Coverage()
        #expect(!single.isComplete)
        single.add(subscriptionFrame: [0])  // unsubscribe from everything
        #expect(!single.isComplete)
        single.add(subscriptionFrame: [1])
        #expect(single.isComplete && single.count == ShardKey.bucketCount)

        var sharded = ShardKey.Coverage()
        for shard in 0..<3 {
            for prefix in ShardKey.subscriptionPrefixes(shard: shard, of: 3) {
                #expect(!sharded.isComplete)
                sharded.add(subscriptionFrame: [1] + Array(prefix.utf8))
                sharded.add(subscriptionFrame: [1] + Array(prefix.utf8))  // a repeat adds nothing
            }
            #expect(
                sharded.count
                    == (0...shard).reduce(0) { total, index in
                        total + ShardKey.subscriptionPrefixes(shard: index, of: 3).count
                    })
        }
        #expect(sharded.isComplete)

        var other = ShardKey.Coverage()
        for frame in [[1] + Array("zz".utf8), [1] + Array("xyz/".utf8), [0] + Array("000/".utf8)] {
            other.add(subscriptionFrame: frame)
        }
        #expect(other.count == 0)

        // In force from a prefix's subscription to its unsubscription; shorter prefixes cover their share.
        var changing = ShardKey.Coverage()
        changing.add(subscriptionFrame: [1] + Array("0a1/".utf8))
        changing.add(subscriptionFrame: [1] + Array("f".utf8))
        changing.add(subscriptionFrame: [1] + Array("fe".utf8))
        #expect(changing.count == 1 + 256)
        changing.add(subscriptionFrame: [0] + Array("f".utf8))
        #expect(changing.count == 1 + 16)
        changing.add(subscriptionFrame: [1])
        #expect(changing.isComplete)
        changing.add(subscriptionFrame: [0])
        changing.add(subscriptionFrame: [0] + Array("0a1/".utf8))
        #expect(changing.count == 16)
        sharded.add(subscriptionFrame: [0] + Array(ShardKey.subscriptionPrefixes(shard: 1, of: 3)[0].utf8))
        #expect(!sharded.isComplete && sharded.count == ShardKey.bucketCount - 1)
    }
}
