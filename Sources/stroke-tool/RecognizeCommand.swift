import Foundation
import StrokeProtocol
import StrokeRecognition
import StrokeWorker

/// `stroke-tool recognize`: what a worker would answer for strokes of one's own, without a worker.
enum RecognizeCommand {
    static let usage = """
        USAGE: stroke-tool recognize (--strokes STROKES.json | --dataset DIR) [options]

        Recognizes each stroke as a worker would at its end, and replays it point by point through the checkmark
        detector as a worker would while it is drawn: to try a library or a detector tuning on strokes of your
        own before a worker runs them.
          STROKES.json: [{"name": "check", "points": [[x, y, t], …]}, …]; "name" (the gesture meant) is optional,
          and so is t (milliseconds), without which the detector has no timing (`minimumDuration` is then moot).
          A gesture of several strokes has "strokes": [[[x, y, t], …], …] instead of "points", matched as a
          session that groups strokes matches it (Protocol/README.md §4.2); the detector runs in each stroke.

        OPTIONS
          --strokes FILE           the strokes to recognize, as above
          --dataset DIR            or $1-format logs (`stroke-tool eval --help`), with --subjects s02,…
          --subjects LIST          with --dataset: only these subjects' strokes
          --library FILE|default   the template library (default: the built-in one)
          --checkmark-config FILE  the checkmark detector's tuning (default: the built-in one)
          --gestures LIST          match among these gestures only, as a session that chose them
                                   (`options` with `gestures`; default: all); a name the library does not
                                   have is refused
          --gesture NAME           one more such gesture, repeatable, its name taken whole (commas too)
          --max-points-per-stroke N
                                   a stroke of more points is no match, too many points, as the worker's
                                   --max-points-per-stroke answers it; the checkmark detector sees its
                                   first N (default 10,000, the worker's)
          --minimum-size S         a stroke smaller than S on both sides (its bounding box, in the file's
                                   coordinates) is no match, too small, as in a session that set
                                   minimumSize S, and a check the detector finds while the stroke is
                                   smaller is given at the point where it reaches S, as the worker sends
                                   it (default 0: every stroke is matched)
          --minimum-score S        a stroke must score at least S to match, as well as the library's own
                                   threshold, as in a session that set minimumScore S (default 0: the
                                   library's alone)
          --gesture-score NAME=S   a stroke must score at least S to match the gesture NAME, as well as the
                                   library's threshold for it and --minimum-score, as in a session that set
                                   gestureScores (repeatable; the name taken whole, up to its last =)
          --follow-tilt on|off     the strokes as one session's, in order: the detector and the library judge
                                   each turned back by the tilt the matches before it show, as the worker's
                                   --checkmark-follow-tilt and --match-follow-tilt do (default on; off: each
                                   stroke as drawn)
          --choice-margin M        with a choice: how far above the best chosen match a gesture outside it
                                   must score to answer "not chosen" (as the worker's --choice-margin;
                                   default 0.05, inf: only where no chosen gesture matched)
          --json                   one JSON object per stroke, a line each
        """

    /// A stroke of the file, or a gesture of several: the gesture meant, if given, and its points.
    struct Stroke: Decodable {
        var name: String?
        /// All the points, stroke after stroke.
        var points: [StrokePoint]
        /// Where each stroke after the first begins in `points`; empty for one stroke.
        var strokeStarts: [Int] = []

        private enum CodingKeys: String, CodingKey { case name, points, strokes }

        init(name: String?, points: [StrokePoint]) {
            self.name = name
            self.points = points
        }

        /// The strokes of a STROKES.json file, as `recognize`, `send` and `library add` read it: a file that cannot
        /// be read is an I/O error, one that does not decode a usage error; both name the file.
        static func read(_ path: String) throws -> [Stroke] {
            let data = try RecognitionError.contents(ofFile: path)
            if let problem = RecognitionError.documentProblem(in: data) {
                throw CommandLineArguments.Failure(description: "--strokes \(path): not a list of strokes: \(problem)")
            }
            do {
                return try RecognitionError.decodeJSON([Stroke].self, from: data)
            } catch let error as DecodingError {
                // A template library given where strokes belong (its templates are strokes, in an object).
                let library =
                    (try? JSONSerialization.jsonObject(with: data) as? [String: Any])?["templates"] is [Any]
                    ? " (this is a template library: --library takes it)" : ""
                throw CommandLineArguments.Failure(
                    description:
                        "--strokes \(path): not a list of strokes: \(RecognitionError.describe(error, in: data))"
                        + library)
            } catch {
                throw CommandLineArguments.Failure(description: "--strokes \(path): not a list of strokes: \(error)")
            }
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decodeIfPresent(String.self, forKey: .name)
            func points(_ numbers: [[Double]], key: CodingKeys) throws -> [StrokePoint] {
                try numbers.enumerated().map { index, numbers in
                    guard numbers.count == 2 || numbers.count == 3 else {
                        throw DecodingError.dataCorruptedError(
                            forKey: key, in: container,
                            debugDescription:
                                "point \(index) has \(numbers.count) numbers; expected [x, y] or [x, y, t]")
                    }
                    return StrokePoint(x: numbers[0], y: numbers[1], time: numbers.count == 3 ? numbers[2] : 0)
                }
            }
            if container.contains(.strokes) {
                // Both would leave one unread without a word; a stroke of no points inside a gesture, which no
                // producer can send, was dropped, and the gesture matched as one of fewer strokes.
                guard !container.contains(.points) else {
                    throw DecodingError.dataCorruptedError(
                        forKey: .points, in: container,
                        debugDescription: "\"points\" (one stroke) or \"strokes\" (a gesture of several), not both")
                }
                self.points = []
                for (index, stroke) in try container.decode([[[Double]]].self, forKey: .strokes).enumerated() {
                    guard !stroke.isEmpty else {
                        throw DecodingError.dataCorruptedError(
                            forKey: .strokes, in: container,
                            debugDescription: "stroke \(index) of the gesture has no points")
                    }
                    if !self.points.isEmpty { strokeStarts.append(self.points.count) }
                    self.points += try points(stroke, key: .strokes)
                }
            } else {
                self.points = try points(try container.decode([[Double]].self, forKey: .points), key: .points)
            }
        }

        /// Each stroke's points.
        var strokes: [ArraySlice<StrokePoint>] {
            let bounds = [0] + strokeStarts + [points.count]
            return (0..<(strokeStarts.count + 1)).map { points[bounds[$0]..<bounds[$0 + 1]] }
        }
    }

    /// One stroke's answer.
    struct Answer: Encodable {
        /// A gesture considered, as the worker's `match` event lists it.
        struct Candidate: Encodable {
            var name: String
            var score: Double
            /// Set (true) when its template matched drawn the other way round, as the event says.
            var backward: Bool?

            init(_ candidate: RecognitionResult.Candidate) {
                name = candidate.name
                score = candidate.score
                backward = candidate.drawnBackward ? true : nil
            }
        }

        var index: Int
        var expected: String?
        var match: String?
        var score: Double?
        /// Set (true) when the match's template matched drawn the other way round (a library either way round).
        var backward: Bool?
        /// The match's turn from its template, in degrees, as the event's `rotation`.
        var rotation: Double?
        var candidates: [Candidate]
        /// With a choice, the gesture outside it that answers instead of a match (the event's `unchosen`).
        var unchosen: Candidate?
        var checkmarkPointIndex: Int?
        /// Why the stroke was not recognized at all: `too_small` (`--minimum-size`), `too_many_points`
        /// (`--max-points-per-stroke`), `straight_stroke` (a straight line, and no template it may be answered with
        /// is one).
        var reason: String?
        /// Set (true) when the detector held a check-shaped stroke back under a millisecond: times in seconds?
        var timesLookLikeSeconds: Bool?
        var error: String?
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try StrokeTool.parse(
            arguments, flags: ["json"],
            known: [
                "strokes", "dataset", "subjects", "library", "checkmark-config", "gestures", "gesture", "choice-margin",
                "minimum-size", "minimum-score", "gesture-score", "follow-tilt", "max-points-per-stroke",
            ])
        if args.flag("help") {
            print(usage)
            return 0
        }
        let strokes: [Stroke]
        if let path = args.value("strokes") {
            strokes = try Stroke.read(path)
        } else if let dataset = args.value("dataset") {
            let subjects = Set(args.values("subjects"))
            strokes = try DollarLog.loadDataset(dataset).filter { subjects.isEmpty || subjects.contains($0.subject) }
                .map { Stroke(name: $0.gesture, points: $0.points) }
        } else {
            throw CommandLineArguments.Failure(description: "--strokes FILE or --dataset DIR is required\n\n\(usage)")
        }
        // Nothing to recognize printed nothing and exited 0, as if all had gone well (`send` refuses it too).
        guard !strokes.isEmpty else {
            let source = args.value("strokes").map { "--strokes \($0)" } ?? "--dataset \(args.value("dataset") ?? "")"
            let subjects = args.values("subjects")
            throw CommandLineArguments.Failure(
                description: "\(source): no strokes"
                    + (subjects.isEmpty ? "" : " of --subjects \(subjects.joined(separator: ","))"))
        }
        var configuration = RecognizerConfiguration.default
        if let text = args.value("choice-margin") {
            configuration.choiceMargin = try WorkerConfiguration.choiceMargin(text)
        }
        try configuration.validate()
        // A stroke the worker would not keep is answered as the worker answers it (session 78: it was matched).
        let maximumPoints = try args.parsed("max-points-per-stroke", default: WorkerConfiguration().maxPointsPerStroke)
        guard (2...10_000_000).contains(maximumPoints) else {
            throw CommandLineArguments.Failure(description: "--max-points-per-stroke: a count from 2 to 10,000,000")
        }
        let minimumSize: Double = try args.parsed("minimum-size", default: 0)
        guard minimumSize.isFinite && minimumSize >= 0 else {
            throw CommandLineArguments.Failure(description: "--minimum-size: a finite size of at least 0")
        }
        let minimumScore: Double = try args.parsed("minimum-score", default: 0)
        guard minimumScore >= 0 && minimumScore <= 1 else {
            throw CommandLineArguments.Failure(description: "--minimum-score: a score from 0 to 1")
        }
        var library = try LibraryCommand.load(args.value("library") ?? "default")
        // A session's threshold answers as its library's raised to it would (`MinimumScoreTests`).
        library.minimumScore = max(library.minimumScore, minimumScore)
        library.gestureMinimumScores = library.gestureMinimumScores.mapValues { max($0, minimumScore) }
        // And a session's gesture scores as its library's thresholds for those gestures raised (`GestureScoresTests`).
        let scores = try StrokeTool.gestureScores(args, option: "gesture-score")
        try StrokeTool.checkGestures(scores.keys.sorted(), option: "--gesture-score", in: library)
        for (name, score) in scores {
            library.gestureMinimumScores[name] = max(library.gestureMinimumScores[name] ?? library.minimumScore, score)
        }
        let recognizer = try Recognizer(library: library, configuration: configuration)
        let checkmark = try StrokeTool.checkmarkConfiguration(args)
        // A name the library does not have chose nothing, and every stroke was no match (session 81: said nowhere).
        try StrokeTool.checkGestures(args.values("gestures"), option: "--gestures", in: library)
        try StrokeTool.checkGestures(args.wholeValues("gesture"), option: "--gesture", in: library)
        let chosen = args.values("gestures") + args.wholeValues("gesture")
        let followsTilt = try WorkerConfiguration.switchValue("follow-tilt", args.value("follow-tilt")) ?? true
        var tilt = TiltEstimate()
        var correct = 0
        var named = 0
        for (index, stroke) in strokes.enumerated() {
            var answer = Answer(index: index, expected: stroke.name, candidates: [])
            var offset = 0
            // Whether the detector fired on a stroke: the match's verdict, even where the check was too small to send.
            var detected = false
            for part in stroke.strokes {
                var detector = CheckmarkDetector(
                    configuration: checkmark, turnedBy: followsTilt ? Double(tilt.correction) : 0)
                if answer.checkmarkPointIndex == nil,
                    let fired = detector.add(contentsOf: Array(part.prefix(maximumPoints)))
                {
                    detected = true
                    // As the worker sends it: at the point where the stroke reaches the minimum size, if later.
                    answer.checkmarkPointIndex = part.map(\.position).withUnsafeBufferPointer {
                        StrokeBounds.firstIndex(reaching: minimumSize, in: $0, from: fired.pointIndex)
                    }.map { offset + $0 }
                }
                if detector.timesLookLikeSeconds { answer.timesLookLikeSeconds = true }
                offset += part.count
            }
            let bounds = stroke.points.map(\.position).withUnsafeBufferPointer { StrokeBounds(of: $0) }
            if stroke.strokes.contains(where: { $0.count > maximumPoints }) {
                answer.reason = "too_many_points"
            } else if minimumSize > 0, let bounds, bounds.isSmaller(than: minimumSize) {
                answer.reason = "too_small"
            } else {
                do {
                    // As the worker answers: a single stroke with the detector's verdict, a choice as its sessions'.
                    let verdict = stroke.strokes.count == 1 && answer.timesLookLikeSeconds != true
                    let fired = detected
                    // As the worker matches a session that follows its tilt: the library sees the stroke turned back.
                    let turn = followsTilt && !recognizer.isOrientationInvariant ? tilt.correction : 0
                    let positions = StrokeGeometry.rotated(
                        stroke.points.map(\.position), by: Double(turn) * .pi / 180)
                    var isLine = false
                    var (result, chosen, unchosen) = try positions.withUnsafeBufferPointer {
                        points in
                        try stroke.strokeStarts.withUnsafeBufferPointer { starts in
                            try recognizer.withPreparedStroke(points: points, strokeStarts: starts) { prepared in
                                isLine = prepared.isLine
                                return configuration.answer(
                                    among: chosen.isEmpty ? nil : chosen,
                                    recognize: { names in
                                        let result = recognizer.recognize(prepared, among: names)
                                        guard verdict else { return result }
                                        return result.applyingCheckmark(
                                            fired: fired, configuration: configuration,
                                            threshold: recognizer.threshold(for:))
                                    }, match: { $0.match.map { ($0.name, $0.score) } })
                            }
                        }
                    }
                    result.turnRotations(by: -Double(turn))
                    unchosen?.turnRotations(by: -Double(turn))
                    let match = chosen == .chosen ? result.match : nil
                    // As the worker follows a session's tilt: from the matches that tell one (of a template of one
                    // open stroke), a gesture's of several strokes too.
                    if followsTilt, let match, match.showsTilt {
                        tilt.observe(match.rotation)
                    }
                    answer.match = match?.name
                    answer.score = match?.score
                    answer.backward = match?.drawnBackward == true ? true : nil
                    answer.rotation = match.map { ($0.rotation * 10).rounded() / 10 }
                    answer.candidates = result.candidates.map(Answer.Candidate.init)
                    answer.unchosen = unchosen?.match.map(Answer.Candidate.init)
                    // As the worker answers a line that no template could (Protocol/README.md §6).
                    if match == nil, answer.unchosen == nil, answer.candidates.isEmpty, isLine {
                        answer.reason = "straight_stroke"
                    }
                } catch {
                    answer.error = "\(error)"
                }
            }
            if let name = stroke.name {
                named += 1
                if name == answer.match { correct += 1 }
            }
            if args.flag("json") {
                try StrokeTool.printJSON(answer)
            } else {
                printLine(answer)
            }
        }
        if !args.flag("json") && named > 0 {
            print(
                String(
                    format: "%d of %d named strokes matched their name (%.2f%%)", correct, named,
                    Double(correct) * 100 / Double(named)))
        }
        return 0
    }

    static func printLine(_ answer: Answer) {
        var line = "\(answer.index)"
        if let expected = answer.expected { line += " (\(expected))" }
        if let error = answer.error {
            line += ": \(error)"
        } else if answer.reason == "too_small" {
            line += ": no match, too small (under --minimum-size on both sides)"
        } else if answer.reason == "too_many_points" {
            line += ": no match, too many points (over --max-points-per-stroke)"
        } else if answer.reason == "straight_stroke" {
            line += ": no match, a straight stroke (no straight template to answer it)"
        } else {
            line +=
                ": "
                + (answer.match.map { "\($0) \(String(format: "%.3f", answer.score ?? 0))" } ?? "no match")
                + (answer.backward == true ? " (drawn backward)" : "")
                + (answer.rotation.map { " turned \(String(format: "%.1f", $0))°" } ?? "")
                + (answer.unchosen.map { "; not chosen: \($0.name) \(String(format: "%.3f", $0.score))" } ?? "")
            let others = answer.candidates.dropFirst(answer.match == nil ? 0 : 1)
                .map { "\($0.name) \(String(format: "%.3f", $0.score))" }
            if !others.isEmpty { line += "; then " + others.joined(separator: ", ") }
        }
        if let point = answer.checkmarkPointIndex { line += "; checkmark at point \(point)" }
        if answer.timesLookLikeSeconds == true {
            line += "; no checkmark: its times advance as if in seconds (t must be milliseconds)"
        }
        if let expected = answer.expected, answer.error == nil, expected != answer.match { line += "  ✗" }
        print(line)
    }
}
