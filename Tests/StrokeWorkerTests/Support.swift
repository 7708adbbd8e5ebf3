import StrokeProtocol

/// The protocol's topic helper, re-exported for the tests.
enum ShardKeyForTests {
    static func topic(_ session: String) -> String { ShardKey.topic(for: session) }
}
