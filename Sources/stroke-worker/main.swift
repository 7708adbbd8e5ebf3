import Foundation
import StrokeWorker

#if canImport(Glibc)
    import Glibc
#endif

exit(await WorkerCommand.main(Array(CommandLine.arguments.dropFirst())))
