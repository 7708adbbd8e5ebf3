import Foundation
import StrokeRecognition
import StrokeWorker

/// `stroke-tool library`.
enum LibraryCommand {
    static let usage = """
        USAGE
          stroke-tool library build --dataset DIR -o FILE [--name N] [--subjects s02,s03] [--orientation O]
                                    [--per-gesture K | --all] [--seed S] [--stroke-direction D]
                                    [--minimum-score S] [--elastic-dead-zone DEG|none] [--neighbors K]
              With --per-gesture K, the K medoids of each gesture's samples (elastic distance); with --all,
              every sample; else a condensed library (each training sample recognized by the others).
              --minimum-score: the score a match needs (default 0.5; the built-in library has 0.6, measured
              with `stroke-tool robustness --minimum-score`).
              --neighbors K: a gesture's score stands for its K nearest templates, their mean distance (1 to
              8; default 1, the nearest alone; the built-in library has 3: with several templates of each
              gesture, strokes that only one of them fits score less, and more strokes of gestures the
              library lacks are turned away; saved as version 4).
              --elastic-dead-zone: how far a stroke may be turned from a template and still be compared with
              it as drawn; past it, as if drawn upright (default 10, as the built-in library: tilted hands
              are recognized); none: always as drawn, for gestures that differ by direction alone (swipes).
          stroke-tool library add FILE --dataset DIR [--subjects …] [--gesture NAME]
          stroke-tool library add FILE --strokes STROKES.json [--gesture NAME] [--name N] [--orientation O]
                                  [--stroke-order S] [--stroke-direction D] [--minimum-score S]
                                  [--elastic-dead-zone DEG|none] [--neighbors K]
              STROKES.json: [{"name": "check", "points": [[x, y], …]}, …], as `recognize` and `send` take it
              (a point's time, [x, y, t], is read and left out); a gesture of several strokes (saved as
              version 2): {"name": "plus", "strokes": [[[x, y], …], [[x, y], …]]}. --gesture NAME: only the
              strokes of that name, and those of no name taken as it. A FILE that does not exist is created:
              a library named N (default: the file's name), sensitive unless --orientation invariant.
              --stroke-order any|drawn: how templates of several strokes are matched (default any).
              --stroke-direction drawn|any: whether strokes match only the way round their templates were
              drawn (default) or either way (a circle clockwise or not); with add, changes the FILE's, as
              --minimum-score S changes the score its matches need (a new FILE's default: 0.5),
              --elastic-dead-zone its dead zone (a new FILE's default: 10; as build says), and --neighbors
              how many of a gesture's templates its score stands for (a new FILE's default: 1).
          stroke-tool library add FILE --library OTHER|default [--gesture NAME]
              The templates of another library file or of the built-in one (of gesture NAME only, if given):
              the built-in gestures and Libraries/swipes.json in one library, say. Their gestures' own
              thresholds in OTHER come along, where FILE has none for them.
              Each add passes over templates FILE holds already (the same gesture and points), and says how
              many; with nothing new, FILE is left unchanged and the status is 1.
          stroke-tool library remove FILE --gesture NAME [--index I]
              A gesture's own threshold (`threshold`) stays, for templates added again or learned.
        \(thresholdUsage)
          stroke-tool library list FILE|default
          stroke-tool library export-default -o FILE [--name N] [--stroke-direction D] [--minimum-score S]
                                             [--elastic-dead-zone DEG|none] [--neighbors K]
              The built-in library as a file, to edit or to load beside it under another name (N), with
              another threshold (S), dead zone or number of templates a score stands for if given.
        \(checkUsage)
        """

    static func load(_ pathOrDefault: String) throws -> TemplateLibrary {
        pathOrDefault == "default" ? try TemplateLibrary.builtIn() : try TemplateLibrary(contentsOf: pathOrDefault)
    }

    /// The templates of a STROKES.json file (`library add --strokes`), read as `recognize` and `send` read it: a
    /// point's time is read and left out. With `gesture`, only the strokes of that name, and those of no name
    /// taken as it; without, every stroke needs a name.
    static func templates(strokes path: String, gesture: String?) throws -> [GestureTemplate] {
        try RecognizeCommand.Stroke.read(path).enumerated().compactMap { index, stroke in
            guard let name = stroke.name ?? gesture else {
                throw CommandLineArguments.Failure(
                    description:
                        "--strokes \(path): stroke \(index) has no \"name\": a template needs its gesture's name "
                        + "(or give --gesture NAME)")
            }
            guard gesture == nil || name == gesture else { return nil }
            let pieces = stroke.strokes.map { $0.map(\.position) }
            return pieces.count == 1
                ? GestureTemplate(name: name, points: pieces[0]) : GestureTemplate(name: name, strokes: pieces)
        }
    }

    /// `--minimum-score`, `--elastic-dead-zone` and `--neighbors`, where given, on `library` (`build`, `add`,
    /// `export-default`).
    static func applySettings(_ args: CommandLineArguments, to library: inout TemplateLibrary) throws {
        library.minimumScore = try StrokeTool.minimumScore(args, default: library.minimumScore)
        library.elasticDeadZoneDegrees = try StrokeTool.elasticDeadZone(args, default: library.elasticDeadZoneDegrees)
        library.neighbors = try StrokeTool.neighbors(args, default: library.neighbors)
    }

    /// Says that `output` was written: on standard output for a file, on standard error where `output` is no
    /// regular file (`-o /dev/stdout`, a pipe), so that the note does not end up after the library it was written
    /// into.
    static func noteWritten(_ output: String, _ note: String) {
        if RecognitionError.nonRegularKind(of: output) == nil {
            print(note)
        } else {
            FileHandle.standardError.write(Data((note + "\n").utf8))
        }
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try StrokeTool.parse(
            arguments, flags: ["all", "json"],
            known: [
                "per-gesture", "dataset", "output", "name", "subjects", "orientation", "seed", "gesture", "strokes",
                "index", "stroke-order", "stroke-direction", "minimum-score", "margin", "library", "elastic-dead-zone",
                "neighbors",
            ], positional: nil)
        if args.flag("help") {
            print(usage)
            return 0
        }
        guard let action = args.positional.first else {
            StrokeTool.printError("stroke-tool library: an action is needed\n\n\(usage)")
            return 2
        }
        try checkOptions(args, of: action)
        try checkArguments(args, of: action)
        func samples() throws -> [DollarLog] {
            guard let dataset = args.value("dataset") else {
                throw CommandLineArguments.Failure(description: "--dataset DIR is required")
            }
            var logs = try StrokeTool.bySubjects(try DollarLog.loadDataset(dataset), args)
            if let gesture = args.value("gesture") { logs.removeAll { $0.gesture != gesture } }
            return logs
        }
        func file() throws -> String {
            guard args.positional.count >= 2 else {
                throw CommandLineArguments.Failure(description: "library \(action) needs a FILE\n\n\(usage)")
            }
            return args.positional[1]
        }
        switch action {
        case "build":
            guard let output = args.value("output") else {
                throw CommandLineArguments.Failure(description: "-o FILE is required")
            }
            let orientation = TemplateLibrary.Orientation(rawValue: args.value("orientation") ?? "sensitive")
            guard let orientation else {
                throw CommandLineArguments.Failure(description: "--orientation: sensitive or invariant")
            }
            let logs = try samples()
            // A misspelt --gesture wrote a library of no templates and exited 0.
            guard !logs.isEmpty else {
                throw CommandLineArguments.Failure(
                    description: "--gesture \(args.value("gesture") ?? ""): no strokes of this gesture in --dataset")
            }
            let name = args.value("name") ?? "default"
            var library: TemplateLibrary
            if let perGesture = args.value("per-gesture") {
                guard let k = Int(perGesture), k > 0 else {
                    throw CommandLineArguments.Failure(description: "--per-gesture: a positive number")
                }
                library = try TemplateLibrary.medoids(
                    name: name, samples: logs, perGesture: k, orientation: orientation)
            } else if args.flag("all") {
                library = TemplateLibrary(
                    name: name, orientation: orientation,
                    elasticDeadZoneDegrees: TemplateLibrary.shapeElasticDeadZoneDegrees,
                    templates: logs.map { GestureTemplate(name: $0.gesture, strokePoints: $0.points) })
            } else {
                library = try TemplateLibrary.condensed(
                    name: name, samples: logs, orientation: orientation, seed: try args.parsed("seed", default: 1))
            }
            library.strokeDirection = try StrokeTool.strokeDirection(args)
            try applySettings(args, to: &library)
            try library.save(to: output)
            noteWritten(
                output,
                "wrote \(output): \(library.templates.count) templates of \(library.gestureNames.count) gestures")
        case "add":
            let path = try file()
            var library: TemplateLibrary
            if FileManager.default.fileExists(atPath: path) {
                library = try TemplateLibrary(contentsOf: path)
            } else {
                guard let orientation = TemplateLibrary.Orientation(rawValue: args.value("orientation") ?? "sensitive")
                else {
                    throw CommandLineArguments.Failure(description: "--orientation: sensitive or invariant")
                }
                let name = args.value("name") ?? URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
                library = TemplateLibrary(
                    name: name, orientation: orientation,
                    elasticDeadZoneDegrees: TemplateLibrary.shapeElasticDeadZoneDegrees)
            }
            if let order = args.value("stroke-order") {
                guard let strokeOrder = TemplateLibrary.StrokeOrder(rawValue: order) else {
                    throw CommandLineArguments.Failure(description: "--stroke-order: any or drawn")
                }
                library.strokeOrder = strokeOrder
            }
            if args.value("stroke-direction") != nil { library.strokeDirection = try StrokeTool.strokeDirection(args) }
            try applySettings(args, to: &library)
            let before = library.templates.count
            var passedOver = 0
            if let strokes = args.value("strokes") {
                passedOver = library.addNew(
                    contentsOf: try Self.templates(strokes: strokes, gesture: args.value("gesture")))
            } else if let other = args.value("library") {
                let gesture = args.value("gesture")
                let source = try load(other)
                let added = source.templates.filter { gesture == nil || $0.name == gesture }
                passedOver = library.addNew(contentsOf: added)
                // The added gestures' own thresholds come along, unless FILE gives them one already.
                for name in Set(added.map(\.name)) where library.gestureMinimumScores[name] == nil {
                    if let score = source.gestureMinimumScores[name] { library.gestureMinimumScores[name] = score }
                }
            } else {
                passedOver = library.addNew(
                    contentsOf: try samples().map { GestureTemplate(name: $0.gesture, strokePoints: $0.points) })
            }
            // Templates already there, as from a file of strokes added twice, are passed over: said, not added.
            let already =
                passedOver == 0
                ? "" : "\(String(counting: passedOver, "template")) already in \(path) passed over"
            // A misspelt --gesture or --subjects added nothing, rewrote the file and exited 0.
            guard library.templates.count > before else {
                let source = args.value("strokes") ?? args.value("library") ?? args.value("dataset") ?? ""
                let filters = ["gesture", "subjects"].filter { !args.values($0).isEmpty }.map {
                    "--\($0) \(args.values($0).joined(separator: ","))"
                }
                throw RecognitionError(
                    .notFound,
                    "nothing to add from \(source)" + (filters.isEmpty ? "" : " with \(filters.joined(separator: " "))")
                        + (already.isEmpty ? "" : " (\(already))") + "; \(path) is unchanged")
            }
            try library.save(to: path)
            let added = String(counting: library.templates.count - before, "template")
            print("added \(added) to \(path)" + (already.isEmpty ? "" : " (\(already))"))
        case "remove":
            let path = try file()
            var library = try TemplateLibrary(contentsOf: path)
            guard let gesture = args.value("gesture") else {
                throw CommandLineArguments.Failure(description: "--gesture NAME is required")
            }
            // A misspelt name removed nothing, said so in passing and rewrote the file, with status 0.
            guard library.templates.contains(where: { $0.name == gesture }) else {
                let names = library.gestureCounts.map(\.name).joined(separator: ", ")
                throw RecognitionError(
                    .notFound, "\(path) has no gesture \"\(gesture)\" (its gestures: \(names.isEmpty ? "none" : names))"
                )
            }
            if let index = args.value("index") {
                guard let index = Int(index) else {
                    throw CommandLineArguments.Failure(description: "--index: a number")
                }
                try library.remove(named: gesture, at: index)
                print("removed \(gesture)[\(index)] from \(path)")
            } else {
                let removed = String(counting: library.removeAll(named: gesture), "template")
                print("removed \(removed) of \(gesture) from \(path)")
            }
            try library.save(to: path)
        case "list":
            let library = try load(try file())
            let several = library.templates.filter { $0.strokeCount > 1 }
            print(
                "\(library.name): \(library.orientation.rawValue), max rotation \(library.maxRotationDegrees)°, "
                    + "minimum score \(library.minimumScore), "
                    + (library.neighbors == 1 ? "" : "scores of the \(library.neighbors) nearest templates, ")
                    + (library.orientation == .invariant
                        ? "" : "elastic dead zone \(library.elasticDeadZoneDegrees.map { "\($0)°" } ?? "none"), ")
                    + String(counting: library.templates.count, "template")
                    + (several.isEmpty
                        ? ""
                        : " (\(several.count) of several strokes, matched "
                            + (library.strokeOrder == .any ? "in any order" : "as drawn") + ")")
                    + (library.strokeDirection == .any ? ", strokes either way round" : ""))
            let counts = Dictionary(uniqueKeysWithValues: library.gestureCounts.map { ($0.name, $0.count) })
            for name in Set(counts.keys).union(library.gestureMinimumScores.keys).sorted() {
                let strokes = Set(library.templates.filter { $0.name == name }.map(\.strokeCount)).sorted()
                print(
                    "  \(name): \(counts[name] ?? 0)"
                        + (strokes == [1] || strokes.isEmpty
                            ? "" : " (strokes: \(strokes.map(String.init).joined(separator: ", ")))")
                        + (library.gestureMinimumScores[name].map { ", minimum score \($0)" } ?? ""))
            }
        case "check":
            return try check(args, path: try file())
        case "threshold":
            return try threshold(args, path: try file())
        case "export-default":
            guard let output = args.value("output") else {
                throw CommandLineArguments.Failure(description: "-o FILE is required")
            }
            var library = try TemplateLibrary.builtIn()
            library.name = args.value("name") ?? library.name
            library.strokeDirection = try StrokeTool.strokeDirection(args)
            try applySettings(args, to: &library)
            try library.save(to: output)
            noteWritten(output, "wrote \(output)")
        default:
            throw CommandLineArguments.Failure(description: "unknown library action \"\(action)\"\n\n\(usage)")
        }
        return 0
    }
}
