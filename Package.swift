// swift-tools-version:6.0
import PackageDescription

// The wide build of the matcher's kernels targets x86-64-v3 (Haswell and newer: AVX2, FMA, BMI2), the AVX-512 one
// x86-64-v4 (AVX-512 F, CD, BW, DQ, VL; `skylake-avx512` is the oldest CPU name that has them); elsewhere each
// is another portable build that is never chosen.
#if arch(x86_64)
let wideKernelSettings: [SwiftSetting] = [.unsafeFlags(["-target-cpu", "haswell"])]
let avx512KernelSettings: [SwiftSetting] = [.unsafeFlags(["-target-cpu", "skylake-avx512"])]
#else
let wideKernelSettings: [SwiftSetting] = []
let avx512KernelSettings: [SwiftSetting] = []
#endif

// `STROKE_TARGET_CPU` (set by `make release TARGET_CPU=…` and by the Dockerfile's TARGET_CPU) builds every Swift
// target but the kernels for that CPU. The kernel builds keep their own targets: passed as `-Xswiftc -target-cpu`
// instead, it would override theirs (the last one wins), and the AVX-512 kernels would be built for that CPU too.
let targetCPU = Context.environment["STROKE_TARGET_CPU"].flatMap { $0.isEmpty ? nil : $0 }
let cpuSettings: [SwiftSetting] = targetCPU.map { [.unsafeFlags(["-target-cpu", $0])] } ?? []

let package = Package(
    name: "stroke-worker",
    products: [
        .executable(name: "stroke-worker", targets: ["stroke-worker"]),
        .executable(name: "stroke-tool", targets: ["stroke-tool"]),
        .executable(name: "stroke-bench", targets: ["stroke-bench"]),
        .library(name: "StrokeRecognition", targets: ["StrokeRecognition"]),
        .library(name: "StrokeProtocol", targets: ["StrokeProtocol"]),
        // A Swift client of the protocol: StrokeProducer, WorkerEvents (and ZeroMQ's context, which they take).
        .library(name: "StrokeWorker", targets: ["StrokeWorker"]),
        .library(name: "ZeroMQ", targets: ["ZeroMQ"]),
    ],
    targets: [
        // MARK: - C and its thin Swift wrapper
        .systemLibrary(
            name: "CZeroMQ",
            pkgConfig: "libzmq",
            providers: [.apt(["libzmq3-dev"])]
        ),
        .target(name: "ZeroMQ", dependencies: ["CZeroMQ"], swiftSettings: cpuSettings),

        // MARK: - Pure modules (no sockets)
        // The matcher's kernels, one source compiled three times: for any CPU, for x86-64-v3 (AVX2) and for
        // x86-64-v4 (AVX-512); the recognizer picks the build the CPU runs, through a C call to the compiler's CPU
        // detection. The same C module gives the worker the compiler's prefetch hint.
        .target(name: "CCPUFeatures"),
        .target(name: "RecognitionKernels"),
        .target(name: "RecognitionKernelsWide", swiftSettings: wideKernelSettings),
        .target(name: "RecognitionKernelsAVX512", swiftSettings: avx512KernelSettings),
        .target(
            name: "StrokeRecognition",
            dependencies: [
                "CCPUFeatures", "RecognitionKernels", "RecognitionKernelsWide", "RecognitionKernelsAVX512",
                // Its JSON reader says where a library or tuning file stops being JSON (`RecognitionError.describe`).
                "StrokeProtocol",
            ],
            swiftSettings: cpuSettings),
        .target(name: "StrokeProtocol", swiftSettings: cpuSettings),

        // MARK: - The worker
        .target(
            name: "StrokeWorker", dependencies: ["ZeroMQ", "StrokeRecognition", "StrokeProtocol", "CCPUFeatures"],
            swiftSettings: cpuSettings),

        // MARK: - Executables
        .executableTarget(name: "stroke-worker", dependencies: ["StrokeWorker"], swiftSettings: cpuSettings),
        .executableTarget(
            name: "stroke-tool", dependencies: ["StrokeWorker", "StrokeRecognition", "StrokeProtocol", "ZeroMQ"],
            swiftSettings: cpuSettings),
        .executableTarget(
            name: "stroke-bench", dependencies: ["StrokeWorker", "StrokeRecognition", "StrokeProtocol", "ZeroMQ"],
            swiftSettings: cpuSettings),

        // MARK: - Tests
        .testTarget(
            name: "StrokeRecognitionTests",
            dependencies: ["StrokeRecognition", "RecognitionKernels"], exclude: ["Fixtures"]),
        .testTarget(name: "StrokeProtocolTests", dependencies: ["StrokeProtocol"]),
        .testTarget(name: "ZeroMQTests", dependencies: ["ZeroMQ"]),
        .testTarget(name: "StrokeWorkerTests", dependencies: ["StrokeWorker", "ZeroMQ", "CZeroMQ"]),
        .testTarget(name: "StrokeToolTests", dependencies: ["stroke-tool", "ZeroMQ"]),
        .testTarget(name: "StrokeBenchTests", dependencies: ["stroke-bench"]),
    ]
)

// `STROKE_FUZZ=1` adds `stroke-fuzz`, the coverage-guided fuzz targets (libFuzzer; `make fuzz-coverage`). It is built
// only so, with `-sanitize=fuzzer,address`: libFuzzer gives it its `main`.
if Context.environment["STROKE_FUZZ"] == "1" {
    package.products.append(.executable(name: "stroke-fuzz", targets: ["stroke-fuzz"]))
    package.targets.append(
        .executableTarget(
            name: "stroke-fuzz", dependencies: ["StrokeWorker", "StrokeRecognition", "StrokeProtocol"],
            path: "Fuzz/stroke-fuzz"))
}
