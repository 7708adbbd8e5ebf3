import StrokeProtocol

/// Input topics (the protocol's shard key + session id).
enum StrokeProtocolTopics {
    static func topic(_ session: String) -> String { ShardKey.topic(for: session) }
}
