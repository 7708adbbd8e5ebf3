import Foundation
import StrokeRecognition

/// Time per recognition as the library grows.
enum RecognizerBenchmark {
    struct Row: Codable, Sendable {
        var templates: Int
        var microseconds: Double
        /// Set for a cold row (`--cold-sweep`): the megabytes written before each recognition, and `microseconds`
        /// is then the median of single recognitions, not a mean over many in a row.
        var sweepMegabytes: Int? = nil
        /// Set for a learned row (`run(learned:)`): the templates a session learned, matched along with the
        /// library of `templates`.
        var learned: Int? = nil
        /// Set for a row of `run(among:)`: how many of the library's gestures each stroke was recognized among.
        var among: Int? = nil
    }

    /// Strokes to test with: the data set's, or synthetic ones when it is absent.
    static func strokes(dataset: String?) -> [DollarLog] {
        if let dataset, let logs = try? DatasetCache.logs(at: dataset) { return logs }
        var generator = SeededGenerator(seed: 7)
        return (0..<480).map { index in
            let points = (0..<64).map { k -> StrokePoint in
                let angle = Double(k) / 63 * Double.pi * Double(1 + index % 5)
                return StrokePoint(
                    x: 100 * cos(angle) + Double.random(in: -2...2, using: &generator),
                    y: 100 * sin(angle * Double(1 + index % 3)), time: Double(k) * 10)
            }
            return DollarLog(gesture: "g\(index % 16)", subject: "s00", speed: "medium", points: points)
        }
    }

    /// One row per library: the built-in one if `builtIn`, then one of each size built from the samples. With a
    /// `sweepMegabytes` above 0, each row is `coldTime`'s, else `time`'s.
    static func run(
        sizes: [Int], dataset: String?, minimumSeconds: Double, builtIn: Bool = false, sweepMegabytes: Int = 0
    ) throws -> [Row] {
        let samples = strokes(dataset: dataset)
        var rows = [Row]()
        func measure(_ recognizer: Recognizer) throws -> Row {
            sweepMegabytes > 0
                ? try coldTime(recognizer, samples, sweepMegabytes: sweepMegabytes)
                : try time(recognizer, samples, minimumSeconds)
        }
        if builtIn { rows.append(try measure(try Recognizer(library: try TemplateLibrary.builtIn()))) }
        for size in sizes {
            // With the dead zone of the libraries that `stroke-tool library build` makes.
            var library = TemplateLibrary(
                name: "bench-\(size)", elasticDeadZoneDegrees: TemplateLibrary.shapeElasticDeadZoneDegrees)
            var index = 0
            while library.templates.count < size {
                let sample = samples[index % samples.count]
                // Beyond the data set's size, jitter copies so that templates are distinct.
                let round = Double(index / samples.count)
                library.add(
                    GestureTemplate(
                        name: sample.gesture,
                        points: sample.points.enumerated().map { k, p in
                            SIMD2(p.x + round * Double(k % 3), p.y - round * Double(k % 2))
                        }))
                index += 1
            }
            rows.append(try measure(try Recognizer(library: library)))
        }
        return rows
    }

    /// One row per count: the built-in library matched along with `count` templates a session learned, as the
    /// worker matches a session that learned gestures (`Recognizer.recognize(points:alongWith:)`, one
    /// preprocessing for both). The learned templates are samples of the data set resampled as the worker keeps
    /// them.
    static func run(learned counts: [Int], dataset: String?, minimumSeconds: Double) throws -> [Row] {
        let samples = strokes(dataset: dataset)
        let library = try Recognizer(library: try TemplateLibrary.builtIn())
        let queries = samples.map { $0.points.map(\.position) }
        return try counts.map { count in
            var own = TemplateLibrary(name: "learned")
            for k in 0..<count {
                // Every 7th sample: other gestures and subjects than the first queries.
                let sample = samples[(k * 7 + 1) % samples.count]
                own.add(
                    GestureTemplate(
                        name: "learned-\(sample.gesture)",
                        points: StrokeGeometry.resample(
                            sample.points.map(\.position), count: library.configuration.pointCount)))
            }
            let learned = try Recognizer(library: own)
            var sink = 0.0
            let (seconds, done) = try repeatFor(seconds: minimumSeconds) {
                for query in queries.prefix(400) {
                    let (a, b) = try query.withUnsafeBufferPointer {
                        try library.recognize(points: $0, alongWith: learned)
                    }
                    sink += (a.candidates.first?.score ?? 0) + (b.candidates.first?.score ?? 0)
                }
                return min(400, queries.count)
            }
            if sink.isNaN { print("") }
            return Row(templates: library.templateCount, microseconds: seconds * 1e6 / Double(done), learned: count)
        }
    }

    /// One row per count: the built-in library recognizing each stroke among `count` of its gestures only, as the
    /// worker recognizes for a session that chose them (`Recognizer.recognize(points:among:)`): the stroke's own
    /// gesture, when the library has it, and the next ones in the library's order; then, as the worker does where
    /// `RecognizerConfiguration.choiceMargin` asks for it (by default always), among all of them, from the same
    /// prepared stroke.
    static func run(among counts: [Int], dataset: String?, minimumSeconds: Double) throws -> [Row] {
        let samples = strokes(dataset: dataset)
        let builtIn = try TemplateLibrary.builtIn()
        let library = try Recognizer(library: builtIn)
        let names = builtIn.gestureNames
        let queries = samples.prefix(400).map { $0.points.map(\.position) }
        return try counts.map { count in
            let choices = samples.prefix(400).map { sample in
                let first = names.firstIndex(of: sample.gesture) ?? 0
                return (0..<min(count, names.count)).map { names[(first + $0) % names.count] }
            }
            var sink = 0.0
            let (seconds, done) = try repeatFor(seconds: minimumSeconds) {
                for (query, choice) in zip(queries, choices) {
                    sink += try query.withUnsafeBufferPointer { (query) throws(RecognitionError) in
                        try library.withPreparedStroke(points: query) { stroke in
                            let chosen = library.recognize(stroke, among: choice)
                            let score = chosen.candidates.first?.score ?? 0
                            guard library.configuration.needsRecognitionAmongAll(chosenMatched: chosen.match != nil)
                            else { return score }
                            return score + (library.recognize(stroke).candidates.first?.score ?? 0)
                        }
                    }
                }
                return queries.count
            }
            if sink.isNaN { print("") }
            return Row(templates: library.templateCount, microseconds: seconds * 1e6 / Double(done), among: count)
        }
    }

    /// Mean time per recognition of the samples, over at least `minimumSeconds`.
    static func time(_ recognizer: Recognizer, _ samples: [DollarLog], _ minimumSeconds: Double) throws -> Row {
        let size = recognizer.templateCount
        let queries = samples.map { $0.points.map(\.position) }
        var sink = 0.0
        let (seconds, done) = try repeatFor(seconds: minimumSeconds) {
            var done = 0
            for query in queries.prefix(max(16, 200_000 / max(size, 1))) {
                sink += try recognizer.recognize(points: query).candidates.first?.score ?? 0
                done += 1
            }
            return done
        }
        if sink.isNaN { print("") }
        return Row(templates: size, microseconds: seconds * 1e6 / Double(done))
    }

    /// Median time of one recognition after writing to `sweepMegabytes` of memory, one byte in every 64: with more
    /// than the last-level cache holds (32 MB here), the recognizer's code and templates come from memory, as they
    /// do for a worker that recognizes a stroke now and then while other processes run.
    static func coldTime(_ recognizer: Recognizer, _ samples: [DollarLog], sweepMegabytes: Int) throws -> Row {
        let queries = stride(from: 0, to: samples.count, by: max(1, samples.count / coldRecognitions)).prefix(
            coldRecognitions
        ).map { samples[$0].points.map(\.position) }
        let sweep = UnsafeMutableRawBufferPointer.allocate(byteCount: sweepMegabytes << 20, alignment: 64)
        defer { sweep.deallocate() }
        sweep.initializeMemory(as: UInt8.self, repeating: 0)
        var times = [Double]()
        var sink = 0.0
        for (round, query) in queries.enumerated() {
            for offset in stride(from: 0, to: sweep.count, by: 64) {
                sweep[offset] &+= UInt8(truncatingIfNeeded: round)
            }
            let started = BenchClock.now()
            sink += try recognizer.recognize(points: query).candidates.first?.score ?? 0
            times.append(Double(BenchClock.now() - started) / 1000)
        }
        // Read once, so that neither the results nor the sweep's writes can be left out by the optimizer.
        if sink.isNaN || sweep[0] == 1 { print("") }
        times.sort()
        return Row(
            templates: recognizer.templateCount, microseconds: times[times.count / 2], sweepMegabytes: sweepMegabytes)
    }

    /// Recognitions a cold row times, each after its own sweep.
    static let coldRecognitions = 101

    /// Runs `round` until at least `seconds` have passed; returns the time taken and the sum of what the rounds
    /// returned (their work count).
    static func repeatFor(seconds: Double, _ round: () throws -> Int) rethrows -> (seconds: Double, done: Int) {
        let clock = ContinuousClock()
        let started = clock.now
        var elapsed = Duration.zero
        var done = 0
        repeat {
            done += try round()
            elapsed = clock.now - started
        } while elapsed < .seconds(seconds)
        return (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18, done)
    }
}

/// Time per point of the streaming checkmark detector, fed the data set's strokes.
enum DetectorBenchmark {
    /// Nanoseconds per point, each stroke fed as one batch (as the worker feeds a message of many points), or with
    /// `onePointAtATime` one point per call (as it feeds a message of one point). The detections are the same.
    static func nanosecondsPerPoint(dataset: String?, minimumSeconds: Double, onePointAtATime: Bool = false)
        -> Double
    {
        let strokes = RecognizerBenchmark.strokes(dataset: dataset).map(\.points)
        var detector = CheckmarkDetector()
        var fired = 0
        let (seconds, points) = RecognizerBenchmark.repeatFor(seconds: minimumSeconds) {
            var points = 0
            for stroke in strokes {
                detector.reset()
                if onePointAtATime {
                    for point in stroke where detector.add(point) != nil { fired += 1 }
                } else if detector.add(contentsOf: stroke) != nil {
                    fired += 1
                }
                points += stroke.count
            }
            return points
        }
        if fired < 0 { print("") }
        return seconds * 1e9 / Double(points)
    }
}
