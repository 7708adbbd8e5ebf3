import Foundation
import StrokeRecognition
import StrokeWorker

/// `stroke-tool library`.
enum LibraryCommand {
    static func load(_ pathOrDefault: String) throws -> TemplateLibrary {
        pathOrDefault == "default" ? TemplateLibrary.builtIn : try TemplateLibrary(contentsOf: pathOrDefault)
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        throw CommandLineArguments.Failure(description: "not yet")
    }
}
