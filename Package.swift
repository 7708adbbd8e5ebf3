// swift-tools-version:6.0
import PackageDescription

// The wide build of the matcher's kernels targets x86-64-v3 (Haswell and newer: AVX2, FMA, BMI2); elsewhere it is
// a second portable build that is never chosen.
#if arch(x86_64)
let wideKernelSettings: [SwiftSetting] = [.unsafeFlags(["-target-cpu", "haswell"])]
#else
let wideKernelSettings: [SwiftSetting] = []
#endif

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
        // The matcher's kernels, one source compiled twice: for any CPU, and for x86-64-v3 (AVX2); the
        // recognizer picks the build the CPU runs, through a C call to the compiler's CPU detection. The same C
        // module gives the worker the compiler's prefetch hint.
        .target(name: "CCPUFeatures"),
        .target(name: "RecognitionKernels"),
        .target(name: "RecognitionKernelsWide", swiftSettings: wideKernelSettings),
        .target(name: "StrokeRecognition", dependencies: ["CCPUFeatures", "RecognitionKernels", "RecognitionKernelsWide"]),
        .target(name: "StrokeProtocol"),

        // MARK: - The worker
        .target(name: "StrokeWorker", dependencies: ["ZeroMQ", "StrokeRecognition", "StrokeProtocol", "CCPUFeatures"]),

        // MARK: - Executables
        .executableTarget(name: "stroke-worker", dependencies: ["StrokeWorker"]),
        .executableTarget(name: "stroke-tool", dependencies: ["StrokeWorker", "StrokeRecognition", "StrokeProtocol"]),
        .executableTarget(
            name: "stroke-bench", dependencies: ["StrokeWorker", "StrokeRecognition", "StrokeProtocol", "ZeroMQ"]),

        // MARK: - Tests
        .testTarget(
            name: "StrokeRecognitionTests",
            dependencies: ["StrokeRecognition", "RecognitionKernels", "RecognitionKernelsWide"], exclude: ["Fixtures"]),
        .testTarget(name: "StrokeProtocolTests", dependencies: ["StrokeProtocol"]),
        .testTarget(name: "ZeroMQTests", dependencies: ["ZeroMQ"]),
        .testTarget(name: "StrokeWorkerTests", dependencies: ["StrokeWorker"]),
        .testTarget(name: "StrokeToolTests", dependencies: ["stroke-tool"]),
        .testTarget(name: "StrokeBenchTests", dependencies: ["stroke-bench"]),
    ]
)
