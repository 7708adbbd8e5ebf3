import StrokeRecognition

// MARK: - Library files (`--library`)

extension WorkerConfiguration {
    /// Why the libraries read from `files` cannot serve side by side, naming the files, or nil: a session picks a
    /// library by its name, so each needs its own, and none may be named `default`, the built-in library's.
    /// Before session 82 the worker said only `two template libraries are named "default"`, which left the user to
    /// find which of the files (or that the same file was given twice).
    static func libraryNameClash(files: [String], libraries: [TemplateLibrary]) -> String? {
        var seen = [String: String]()  // a library's name → the file that holds it
        for (file, library) in zip(files, libraries) {
            let name = library.name.quotedForDisplay
            if library.name == "default" {
                return "--library \(file): its library is named \(name), as the built-in one is; give it another "
                    + "name (the file's \"name\" field), by which sessions choose it"
            }
            if let other = seen[library.name] {
                return other == file
                    ? "--library \(file) is given twice"
                    : "--library \(other) and \(file) both hold a library named \(name); give one of them another "
                        + "name (the file's \"name\" field), by which sessions choose it"
            }
            seen[library.name] = file
        }
        return nil
    }
}
