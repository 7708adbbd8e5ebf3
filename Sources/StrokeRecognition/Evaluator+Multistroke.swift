import Foundation

// MARK: - Multistroke gestures

/// What templates of several strokes achieve on strokes drawn in pieces, in any order and direction
/// (`Evaluator.multistroke`).
public struct MultistrokeReport: Sendable, Codable, Hashable {
    /// Strokes each gesture is drawn in.
    public var strokesPerGesture: Int
    /// Accuracy when the pieces come in the order and directions of the templates' subjects.
    public var drawnOrder: Double
    /// Accuracy when each stroke's pieces come in a random order, each piece either way.
    public var anyOrder: Double
    /// The same strokes against the same templates kept as the single strokes they were drawn as (no
    /// expansion): what the expansion is for.
    public var anyOrderWithoutExpansion: Double
    /// In a library of both kinds, where only the gestures people would draw in pieces (`mixedGestures`) are cut:
    /// their strokes, in a random order and directions, recognized.
    public var mixedCut: Double
    /// The same library: the other gestures' strokes, drawn whole, recognized.
    public var mixedWhole: Double
    /// Those strokes against the library with no template cut: what `mixedWhole` would be without the cut ones.
    public var mixedWholeUncut: Double
    /// `anyOrder` by gesture.
    public var anyOrderByGesture: [String: Double]
    /// Strokes tested (each in both orders).
    public var tested: Int
    /// Templates compiled per library, on average (each of several strokes counts for every unistroke it could
    /// be drawn as).
    public var compiledTemplates: Int
    /// Mean time per recognition with the expanded library, in microseconds.
    public var microsecondsPerRecognition: Double
}

extension Evaluator {
    /// The gestures of the $1 logs that people draw in pieces as often as not (two crossing lines, a shaft and a
    /// head, sides): the ones `multistroke` cuts in its library of both kinds.
    public static let mixedGestures: Set<String> = ["x", "arrow", "rectangle", "triangle"]

    /// Templates of several strokes on these logs, whose strokes were each drawn in one piece: every stroke is cut
    /// at its `strokesPerGesture − 1` sharpest corners (`pieces(of:count:)`), as if the pen had been lifted
    /// there. For each subject, a library of `libraryPerGesture` medoids per gesture is built from the other
    /// subjects, its templates cut the same way; the subject's strokes are then matched with their pieces in the
    /// order drawn, and in a random order with each piece reversed at random, joined end to start as the worker
    /// joins a session's strokes. A third library holds both kinds: `mixedGestures` cut, the others whole, and
    /// strokes are matched as they would be drawn for it. Every library's scores stand for its gestures'
    /// `neighbors` nearest templates (`TemplateLibrary.neighbors`).
    public static func multistroke(
        samples: [DollarLog], strokesPerGesture: Int, libraryPerGesture: Int = 8, neighbors: Int = 1,
        seed: UInt64 = 1, configuration: RecognizerConfiguration = .default
    ) throws(RecognitionError) -> MultistrokeReport {
        let subjects = try multistrokeSubjects(samples, strokesPerGesture: strokesPerGesture)
        var generator = SeededGenerator(seed: seed)
        var hits = (drawn: 0, any: 0, unexpanded: 0, mixedCut: 0, mixedWhole: 0, mixedWholeUncut: 0)
        var mixedTested = (cut: 0, whole: 0)
        var tested = 0
        var byGesture = [String: (hits: Int, tested: Int)]()
        var compiled = 0
        var elapsed = 0.0
        for subject in subjects {
            var whole = try TemplateLibrary.medoids(
                name: "without-\(subject)", samples: samples.filter { $0.subject != subject },
                perGesture: libraryPerGesture, configuration: configuration)
            whole.neighbors = neighbors
            let cut = cutLibrary(whole, strokesPerGesture: strokesPerGesture)
            let mixed = try Recognizer(library: mixedLibrary(whole: whole, cut: cut), configuration: configuration)
            let expanded = try Recognizer(library: cut, configuration: configuration)
            let unexpanded = try Recognizer(library: whole, configuration: configuration)
            compiled += expanded.templateCount
            for sample in samples where sample.subject == subject {
                let parts = pieces(of: sample.points.map(\.position), count: strokesPerGesture)
                let drawn = GestureTemplate(name: sample.gesture, strokes: parts)
                let shuffled = shuffled(parts, name: sample.gesture, using: &generator)
                let inOrder = try expanded.recognize(points: drawn.points, strokeStarts: drawn.strokeStarts)
                hits.drawn += inOrder.match?.name == sample.gesture ? 1 : 0
                let start = DispatchTime.now().uptimeNanoseconds
                let result = try expanded.recognize(points: shuffled.points, strokeStarts: shuffled.strokeStarts)
                elapsed += Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000
                hits.any += result.match?.name == sample.gesture ? 1 : 0
                byGesture[sample.gesture, default: (0, 0)].hits += result.match?.name == sample.gesture ? 1 : 0
                byGesture[sample.gesture, default: (0, 0)].tested += 1
                let whole = try unexpanded.recognize(points: shuffled.points, strokeStarts: shuffled.strokeStarts)
                hits.unexpanded += whole.match?.name == sample.gesture ? 1 : 0
                if mixedGestures.contains(sample.gesture) {
                    let answer = try mixed.recognize(points: shuffled.points, strokeStarts: shuffled.strokeStarts)
                    hits.mixedCut += answer.match?.name == sample.gesture ? 1 : 0
                    mixedTested.cut += 1
                } else {
                    hits.mixedWhole += try mixed.recognize(points: drawn.points).match?.name == sample.gesture ? 1 : 0
                    let uncut = try unexpanded.recognize(points: drawn.points)
                    hits.mixedWholeUncut += uncut.match?.name == sample.gesture ? 1 : 0
                    mixedTested.whole += 1
                }
                tested += 1
            }
        }
        func share(_ part: Int, of whole: Int? = nil) -> Double {
            let whole = whole ?? tested
            return whole == 0 ? 0 : Double(part) / Double(whole)
        }
        return MultistrokeReport(
            strokesPerGesture: strokesPerGesture, drawnOrder: share(hits.drawn), anyOrder: share(hits.any),
            anyOrderWithoutExpansion: share(hits.unexpanded), mixedCut: share(hits.mixedCut, of: mixedTested.cut),
            mixedWhole: share(hits.mixedWhole, of: mixedTested.whole),
            mixedWholeUncut: share(hits.mixedWholeUncut, of: mixedTested.whole),
            anyOrderByGesture: byGesture.mapValues { Double($0.hits) / Double($0.tested) }, tested: tested,
            compiledTemplates: compiled / subjects.count,
            microsecondsPerRecognition: tested == 0 ? 0 : elapsed / Double(tested))
    }

    /// The subjects of `samples`, sorted, for an evaluation that cuts strokes into `strokesPerGesture` pieces and
    /// leaves each subject out of its library in turn; an error where it cannot be run.
    static func multistrokeSubjects(_ samples: [DollarLog], strokesPerGesture: Int) throws(RecognitionError)
        -> [String]
    {
        guard (2...GestureTemplate.maximumStrokes).contains(strokesPerGesture) else {
            throw RecognitionError(
                .invalidConfiguration, "strokes per gesture must be 2 to \(GestureTemplate.maximumStrokes)")
        }
        let subjects = Set(samples.map(\.subject)).sorted()
        guard subjects.count >= 2 else {
            throw RecognitionError(.invalidConfiguration, "multistroke evaluation needs logs of two or more subjects")
        }
        return subjects
    }

    /// `whole` with every template cut into `strokesPerGesture` pieces (`pieces(of:count:)`).
    static func cutLibrary(_ whole: TemplateLibrary, strokesPerGesture: Int) -> TemplateLibrary {
        var cut = TemplateLibrary(
            name: whole.name, orientation: whole.orientation, maxRotationDegrees: whole.maxRotationDegrees,
            elasticDeadZoneDegrees: whole.elasticDeadZoneDegrees, minimumScore: whole.minimumScore)
        cut.neighbors = whole.neighbors
        for template in whole.templates {
            cut.add(
                GestureTemplate(name: template.name, strokes: pieces(of: template.points, count: strokesPerGesture)))
        }
        return cut
    }

    /// A library of both kinds: the templates of `mixedGestures` from `cut`, the others' from `whole`.
    static func mixedLibrary(whole: TemplateLibrary, cut: TemplateLibrary) -> TemplateLibrary {
        var mixed = TemplateLibrary(
            name: whole.name, orientation: whole.orientation, maxRotationDegrees: whole.maxRotationDegrees,
            elasticDeadZoneDegrees: whole.elasticDeadZoneDegrees, minimumScore: whole.minimumScore,
            templates: cut.templates.filter { mixedGestures.contains($0.name) }
                + whole.templates.filter { !mixedGestures.contains($0.name) })
        mixed.neighbors = whole.neighbors
        return mixed
    }

    /// A stroke's pieces (`pieces(of:count:)`) in a random order, each either way, as one gesture of several strokes.
    static func shuffled<G: RandomNumberGenerator>(
        _ parts: [[SIMD2<Double>]], name: String, using generator: inout G
    ) -> GestureTemplate {
        GestureTemplate(
            name: name,
            strokes: parts.indices.shuffled(using: &generator).map { index in
                Bool.random(using: &generator) ? parts[index].reversed() : parts[index]
            })
    }

    /// A stroke cut at its `count − 1` sharpest corners into `count` pieces that share their corner points (the
    /// next piece starts where the last one ended, as a pen lifted at a corner and put down again would).
    ///
    /// Corners are the largest turns between the chords to the points a fixed share of the path before and after
    /// (one 32nd), taken along 64 evenly spaced points, at least an eighth of the path apart and from either end.
    /// A stroke too short to cut gives fewer pieces.
    public static func pieces(of points: [SIMD2<Double>], count: Int) -> [[SIMD2<Double>]] {
        let sampleCount = 64
        guard count > 1, points.count >= 4, StrokeGeometry.pathLength(points) > 0 else { return [points] }
        let resampled = StrokeGeometry.resample(points, count: sampleCount)
        let window = 2
        var turns = [(index: Int, turn: Double)]()
        for index in window..<(sampleCount - window) {
            let before = resampled[index] - resampled[index - window]
            let after = resampled[index + window] - resampled[index]
            let turn = abs(atan2(before.x * after.y - before.y * after.x, before.x * after.x + before.y * after.y))
            turns.append((index, turn))
        }
        let spacing = sampleCount / 8
        var corners = [Int]()
        for candidate in turns.sorted(by: { $0.turn > $1.turn }) where corners.count < count - 1 {
            guard candidate.index >= spacing, candidate.index <= sampleCount - 1 - spacing,
                corners.allSatisfy({ abs($0 - candidate.index) >= spacing })
            else { continue }
            corners.append(candidate.index)
        }
        // Each corner of the resampled stroke, as the nearest point of the stroke itself.
        let cuts = corners.map { corner in
            points.indices.min {
                StrokeGeometry.distance(points[$0], resampled[corner])
                    < StrokeGeometry.distance(points[$1], resampled[corner])
            }!
        }
        .sorted()
        var result = [[SIMD2<Double>]]()
        var start = 0
        for cut in cuts where cut > start && cut < points.count - 1 {
            result.append(Array(points[start...cut]))
            start = cut
        }
        result.append(Array(points[start...]))
        return result
    }
}
