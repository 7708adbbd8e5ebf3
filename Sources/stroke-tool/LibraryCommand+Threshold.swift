import StrokeRecognition
import StrokeWorker

// MARK: - A gesture's own threshold

extension LibraryCommand {
    static let thresholdUsage = """
          stroke-tool library threshold FILE --gesture NAME --minimum-score S|library
              The score a match of the gesture NAME must reach, instead of the library's --minimum-score: a
              spell that must be drawn well, beside gestures that need not be (saved as version 3). library:
              the library's own threshold again. NAME need not have templates yet (a session may learn it).
        """

    /// `library threshold`: sets or clears the threshold of one gesture and saves the file.
    static func threshold(_ args: CommandLineArguments, path: String) throws -> Int32 {
        var library = try TemplateLibrary(contentsOf: path)
        guard let gesture = args.value("gesture"), !gesture.isEmpty else {
            throw CommandLineArguments.Failure(description: "--gesture NAME is required")
        }
        guard let text = args.value("minimum-score") else {
            throw CommandLineArguments.Failure(description: "--minimum-score S (0 to 1) or library is required")
        }
        if text == "library" {
            library.gestureMinimumScores[gesture] = nil
        } else {
            library.gestureMinimumScores[gesture] = try StrokeTool.minimumScore(args, default: library.minimumScore)
        }
        try library.save(to: path)
        let templates = library.templates.count { $0.name == gesture }
        print(
            "\(path): \(gesture) needs \(library.threshold(for: gesture))"
                + (library.gestureMinimumScores[gesture] == nil ? " (the library's)" : "")
                + (templates == 0 ? "; the library has no template of it" : ""))
        return 0
    }
}
