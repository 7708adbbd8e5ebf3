import Foundation
import StrokeProtocol
import StrokeRecognition
import StrokeWorker

/// What one fuzz run feeds its input to. Each target checks, beyond "no crash and no memory error" (which the
/// sanitizer and Swift's own checks catch), a property that the input must not break; a broken one stops the run
/// with `fail(_:)`, as a crash does, so that libFuzzer keeps the input.
enum FuzzTarget: String, CaseIterable {
    /// An input message's payload: decoded (JSON or binary); a decoded one encoded again decodes to the same.
    case input
    /// Messages to a session processor, under settings the input picks: the same events one at a time as in
    /// batches, the sessions held written as a state file and read back the same, and a bystander session's check
    /// still answered.
    case processor
    /// An event's payload, as a client decodes it (`OutputEvent(decoding:)`).
    case event
    /// A template library file: read, saved and read back, and a stroke recognized against it.
    case library
    /// A state file: read, its sessions restored into a processor, what that holds written and read back the same,
    /// and a bystander's check still answered.
    case state
    /// A checkmark tuning file: read, validated, and a detector run with it.
    case checkmark

    /// The target of this process (set once, before the first run).
    nonisolated(unsafe) static var selected = FuzzTarget.input

    /// Builds what every run of the target shares, before the first.
    func prepare() {
        switch self {
        case .processor, .state, .library: _ = FuzzFixtures.shared
        case .input, .event, .checkmark: break
        }
    }

    /// Feeds `bytes` to the target.
    func run(_ bytes: UnsafeRawBufferPointer) {
        switch self {
        case .input: Self.input(bytes)
        case .processor: Self.processor(bytes)
        case .event: _ = try? OutputEvent(decoding: bytes)
        case .library: Self.library(Data(bytes))
        case .state: Self.state(Data(bytes))
        case .checkmark: Self.checkmark(Data(bytes))
        }
    }

    /// Stops the run: a property of the target does not hold for this input.
    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("stroke-fuzz: \(message)\n".utf8))
        abort()
    }
}

/// What the runs share: the built-in library's registry, and a check that it recognizes.
struct FuzzFixtures: Sendable {
    /// Built once, at the first use.
    static let shared = FuzzFixtures()

    let registry: LibraryRegistry
    /// A check drawn down to the right, then up to the right, 10 ms a point.
    let check: [StrokePoint]

    private init() {
        guard let library = try? TemplateLibrary.builtIn(), let registry = try? LibraryRegistry([library]) else {
            FuzzTarget.fail("the built-in library does not load")
        }
        self.registry = registry
        var points = [StrokePoint]()
        for k in 0..<12 { points.append(StrokePoint(x: 10 + 3 * Double(k), y: 60 + 4 * Double(k), time: 0)) }
        for k in 1...24 { points.append(StrokePoint(x: 43 + 4 * Double(k), y: 104 - 6 * Double(k), time: 0)) }
        check = points.enumerated().map { StrokePoint(x: $0.element.x, y: $0.element.y, time: 10 * Double($0.offset)) }
    }
}
