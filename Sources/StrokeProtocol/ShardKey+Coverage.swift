extension ShardKey {
    /// Which buckets the subscriptions seen by a publisher (an XPUB) cover: a producer that sends only once
    /// every bucket is covered loses nothing to the slow joiner, whether one worker subscribed to everything
    /// (`""`) or several lanes or workers subscribed to their bucket prefixes one by one.
    public struct Coverage: Sendable {
        private var buckets = Set<Int>()
        private var everything = false

        /// No subscription seen yet.
        public init() {}

        /// Whether every bucket is covered.
        public var isComplete: Bool { everything || buckets.count == ShardKey.bucketCount }

        /// Buckets covered so far.
        public var count: Int { everything ? ShardKey.bucketCount : buckets.count }

        /// Takes one frame received on an XPUB: a subscription is `0x01` then the topic prefix; unsubscriptions
        /// and prefixes that do not start with a shard key are ignored.
        public mutating func add(subscriptionFrame frame: some Collection<UInt8>) {
            guard frame.first == 1 else { return }
            let prefix = frame.dropFirst()
            if prefix.isEmpty {
                everything = true
                return
            }
            guard prefix.count >= ShardKey.length,
                let bucket = Int(String(decoding: prefix.prefix(ShardKey.length), as: UTF8.self), radix: 16),
                (0..<ShardKey.bucketCount).contains(bucket)
            else { return }
            buckets.insert(bucket)
        }
    }
}
