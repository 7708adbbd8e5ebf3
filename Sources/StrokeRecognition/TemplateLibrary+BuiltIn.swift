import Foundation

extension TemplateLibrary {
    /// The built-in library: the 16 gestures of the $1 unistroke study, condensed from the logs of subjects
    /// s02–s06 (see `docs/Recognition.md` for how it was built and how it does on subjects it was not built from).
    ///
    /// It is embedded in the binary, so the worker starts with no file.
    public static func builtIn() throws(RecognitionError) -> TemplateLibrary {
        try TemplateLibrary(json: Data(BuiltInLibraryData.json.utf8), source: "built-in library")
    }
}
