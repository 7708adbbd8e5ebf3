// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "stroke-worker",
    products: [
        .executable(name: "stroke-worker", targets: ["stroke-worker"]),
        .executable(name: "stroke-tool", targets: ["stroke-tool"]),
        .executable(name: "stroke-bench", targets: ["stroke-bench"]),
        .library(name: "StrokeRecognition", targets: ["StrokeRecognition"]),
        .library(name: "StrokeProtocol", targets: ["StrokeProtocol"]),
    ],
    targets: [
        // MARK: - C and its thin Swift wrapper
        .systemLibrary(
            name: "CZeroMQ",
            pkgConfig: "libzmq",
            providers: [.apt(["libzmq3-dev"])]
        ),
        .target(name: "ZeroMQ", dependencies: ["CZeroMQ"]),

        // MARK: - Pure modules (no sockets)
        .target(name: "StrokeRecognition"),
        .target(name: "StrokeProtocol"),

        // MARK: - The worker
        .target(name: "StrokeWorker", dependencies: ["ZeroMQ", "StrokeRecognition", "StrokeProtocol"]),

        // MARK: - Executables
        .executableTarget(name: "stroke-worker", dependencies: ["StrokeWorker"]),
        .executableTarget(name: "stroke-tool", dependencies: ["StrokeWorker", "StrokeRecognition", "StrokeProtocol"]),
        .executableTarget(
            name: "stroke-bench", dependencies: ["StrokeWorker", "StrokeRecognition", "StrokeProtocol", "ZeroMQ"]),

        // MARK: - Tests
        .testTarget(name: "StrokeRecognitionTests", dependencies: ["StrokeRecognition"], exclude: ["Fixtures"]),
        .testTarget(name: "StrokeProtocolTests", dependencies: ["StrokeProtocol"]),
        .testTarget(name: "ZeroMQTests", dependencies: ["ZeroMQ"]),
        .testTarget(name: "StrokeWorkerTests", dependencies: ["StrokeWorker"]),
        .testTarget(name: "StrokeToolTests", dependencies: ["stroke-tool"]),
    ]
)
