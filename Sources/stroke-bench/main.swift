import Foundation
import StrokeRecognition
import ZeroMQ

#if canImport(Glibc)
    import Glibc
#endif

exit(await BenchCommand.main(Array(CommandLine.arguments.dropFirst())))
