extension ShardKey {
    /// Which buckets the subscriptions in force seen by a publisher (an XPUB) cover: a producer that sends only once
    /// every bucket is covered loses nothing to the slow joiner, whether one worker subscribed to everything
    /// (`""`) or several lanes or workers subscribed to their bucket prefixes one by one.
    ///
    /// An XPUB reports a prefix's first subscription and its last unsubscription (a worker that stopped takes
    /// its own with it), so a prefix is in force from the one to the other.
    public struct Coverage: Sendable {
        /// The prefixes in force.
        private var prefixes = Set<[UInt8]>()
        /// How many prefixes in force cover each bucket.
        private var covering = [Int32](repeating: 0, count: ShardKey.bucketCount)

        /// Buckets covered now.
        public private(set) var count = 0

        /// No subscription seen yet.
        public init() {}

        /// Whether every bucket is covered.
        public var isComplete: Bool { count == ShardKey.bucketCount }

        /// Takes one frame received on an XPUB: a subscription (`0x01`, then the topic prefix) puts its prefix in
        /// force, an unsubscription (`0x00`, then the prefix) takes it out. A prefix covers the buckets whose
        /// topics it matches: `""` all of them, a shard key (and more) its bucket, one or two hex digits the
        /// buckets whose keys start with them; other prefixes cover none.
        public mutating func add(subscriptionFrame frame: some Collection<UInt8>) {
            guard let kind = frame.first, kind <= 1 else { return }
            let prefix = Array(frame.dropFirst())
            guard let buckets = Self.buckets(matching: prefix) else { return }
            if kind == 1 {
                guard prefixes.insert(prefix).inserted else { return }
                for bucket in buckets {
                    covering[bucket] += 1
                    if covering[bucket] == 1 { count += 1 }
                }
            } else {
                guard prefixes.remove(prefix) != nil else { return }
                for bucket in buckets {
                    covering[bucket] -= 1
                    if covering[bucket] == 0 { count -= 1 }
                }
            }
        }

        /// The buckets whose topics `prefix` matches, or nil for a prefix that matches none.
        static func buckets(matching prefix: [UInt8]) -> Range<Int>? {
            var value = 0
            var digits = 0
            for byte in prefix.prefix(ShardKey.length) {
                guard let digit = ShardKey.hexValue(byte) else { return nil }
                value = value << 4 | Int(digit)
                digits += 1
            }
            let spread = 1 << (4 * (ShardKey.length - digits))
            return (value * spread)..<((value + 1) * spread)
        }
    }
}
