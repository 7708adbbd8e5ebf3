import StrokeRecognition
import Synchronization

/// The data set's gesture logs, read from disk once per process and shared by every section that draws strokes
/// from it (`BenchCommand.dataset(at:)`, `Traffic.strokes`, `RecognizerBenchmark.strokes`): each used to read and
/// parse the whole directory again, about 16 times in a full run.
enum DatasetCache {
    /// Logs read so far, by the directory as given; a directory that failed to load is not kept.
    private static let loaded = Mutex<[String: [DollarLog]]>([:])

    /// The gesture logs below `directory` (`DollarLog.loadDataset`), from memory after the first read.
    static func logs(at directory: String) throws(RecognitionError) -> [DollarLog] {
        if let logs = loaded.withLock({ $0[directory] }) { return logs }
        let logs = try DollarLog.loadDataset(directory)
        loaded.withLock { $0[directory] = logs }
        return logs
    }
}
