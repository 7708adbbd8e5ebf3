import Foundation

// Coverage-guided fuzzing of what the worker reads from outside (libFuzzer, under AddressSanitizer; `make
// fuzz-coverage`). `STROKE_FUZZ_TARGET` names the target (`FuzzTarget`); the arguments are libFuzzer's.

/// libFuzzer's entry point when the program has a `main` of its own (`libclang_rt.fuzzer_no_main`).
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

let name = ProcessInfo.processInfo.environment["STROKE_FUZZ_TARGET"] ?? ""
guard let target = FuzzTarget(rawValue: name) else {
    let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
    FileHandle.standardError.write(Data("stroke-fuzz: set STROKE_FUZZ_TARGET to one of: \(names)\n".utf8))
    exit(2)
}
FuzzTarget.selected = target
target.prepare()
var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(
    runFuzzerDriver(&argc, &argv) { data, size in
        FuzzTarget.selected.run(UnsafeRawBufferPointer(start: data, count: size))
        return 0
    })
