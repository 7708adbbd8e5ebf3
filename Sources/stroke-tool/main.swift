import StrokeWorker

#if canImport(Glibc)
    import Glibc
#endif

exit(await StrokeTool.main(Array(CommandLine.arguments.dropFirst())))
