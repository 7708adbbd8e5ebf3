import StrokeProtocol
import StrokeRecognition
import Synchronization

/// The gestures one session learned (`end` with `learn`): its templates, compiled for the session's library and
/// orientation, matched together with that library.
///
/// Immutable: learning or forgetting makes a new value, so a finished stroke handed to another thread keeps the
/// templates it was ended with. Each value counts its templates in the worker's `learnedTemplates` gauge while
/// it lives, so the gauge is right however a session ends (closed, idle, restarted).
final class LearnedTemplates: Sendable {
    /// The templates, each resampled to the matcher's point count (`RecognizerConfiguration.pointCount`, 32 by
    /// default), which is all the matcher keeps of a stroke: a stroke of 10,000 points keeps 512 bytes, not 160 KB.
    let templates: [GestureTemplate]
    /// The templates compiled as the session's library is (`Recognizer`), in the session's orientation.
    let recognizer: Recognizer
    /// The library and orientation they were compiled for.
    let slot: LibraryRegistry.Slot
    private let gauge: WorkerMetrics

    private init(
        templates: [GestureTemplate], entry: LibraryRegistry.Entry, slot: LibraryRegistry.Slot,
        metrics: WorkerMetrics
    ) throws(RecognitionError) {
        // Compiled as the session's library is, in the session's orientation: the recognizer of its slot.
        let model = entry.recognizer(invariant: slot.invariant)
        let settings = model.library
        var library = TemplateLibrary(
            name: settings.name, orientation: settings.orientation, maxRotationDegrees: settings.maxRotationDegrees,
            elasticDeadZoneDegrees: settings.elasticDeadZoneDegrees, minimumScore: settings.minimumScore,
            templates: templates)
        // A gesture that a session learned is matched as that player drew it, whatever its library says of stroke
        // order and direction: one path.
        library.strokeOrder = .drawn
        // Scored as the library's gestures are: a learned gesture's score stands for as many of its templates.
        library.neighbors = settings.neighbors
        self.recognizer = try Recognizer(library: library, configuration: model.configuration)
        self.templates = templates
        self.slot = slot
        self.gauge = metrics
        metrics.learnedTemplates.add(templates.count, ordering: .relaxed)
    }

    deinit { gauge.learnedTemplates.subtract(templates.count, ordering: .relaxed) }

    /// Number of templates.
    var count: Int { templates.count }

    // MARK: - Learning and forgetting

    /// Whether `template` has something to match: 2 points or more, and an extent (a tap has none).
    static func hasExtent(_ template: GestureTemplate) -> Bool {
        // Points that differ, not a path length above 0: that of a stroke drawn in coordinates under about 1e-154
        // comes out 0, and the recognizer matches such a stroke as its shape (`ShapeFeatures`).
        template.points.count >= 2 && template.points.contains { $0 != template.points[0] }
    }

    /// `templates`, learned before and kept in a state file, compiled for `slot`.
    ///
    /// - Throws: `RecognitionError` when one has fewer than 2 points or no extent.
    static func restoring(
        _ templates: [GestureTemplate], entry: LibraryRegistry.Entry, slot: LibraryRegistry.Slot,
        metrics: WorkerMetrics
    ) throws(RecognitionError) -> LearnedTemplates {
        try LearnedTemplates(templates: templates, entry: entry, slot: slot, metrics: metrics)
    }

    /// These templates (if any) and `template`.
    ///
    /// - Throws: `RecognitionError` when the template has fewer than 2 points or no extent: it could match
    ///   nothing.
    static func learning(
        _ template: GestureTemplate, to existing: LearnedTemplates?, entry: LibraryRegistry.Entry,
        slot: LibraryRegistry.Slot, metrics: WorkerMetrics
    ) throws(RecognitionError) -> LearnedTemplates {
        // Compiling checks the new template as it checks a library's: a stroke with no extent is refused.
        try LearnedTemplates(
            templates: (existing?.templates ?? []) + [template], entry: entry, slot: slot, metrics: metrics)
    }

    /// These templates without those of `name` (all of them for `LearnedName.all`): nil when none is left, the
    /// same value when none was removed.
    func forgetting(_ name: String, entry: LibraryRegistry.Entry, metrics: WorkerMetrics) -> LearnedTemplates? {
        let kept = name == LearnedName.all ? [] : templates.filter { $0.name != name }
        guard kept.count != templates.count else { return self }
        guard !kept.isEmpty else { return nil }
        return rebuilt(kept, entry: entry, slot: slot, metrics: metrics)
    }

    /// The same templates compiled for another library or orientation (the session's options changed), or this
    /// value when they already are.
    func compiled(for slot: LibraryRegistry.Slot, entry: LibraryRegistry.Entry, metrics: WorkerMetrics)
        -> LearnedTemplates
    {
        guard slot != self.slot else { return self }
        return rebuilt(templates, entry: entry, slot: slot, metrics: metrics)
    }

    /// The same templates compiled again for `entry`, the reloaded library of `slot` (this value if that fails,
    /// which a library reload that keeps its settings valid cannot make it do).
    func recompiled(entry: LibraryRegistry.Entry, metrics: WorkerMetrics) -> LearnedTemplates {
        rebuilt(templates, entry: entry, slot: slot, metrics: metrics)
    }

    /// `templates` compiled for `entry` and `slot`; this value if they do not compile, which templates that
    /// compiled before cannot make happen.
    private func rebuilt(
        _ templates: [GestureTemplate], entry: LibraryRegistry.Entry, slot: LibraryRegistry.Slot,
        metrics: WorkerMetrics
    ) -> LearnedTemplates {
        (try? LearnedTemplates(templates: templates, entry: entry, slot: slot, metrics: metrics)) ?? self
    }

    /// Whether a template of `name` was learned.
    func contains(_ name: String) -> Bool { templates.contains { $0.name == name } }

    // MARK: - Matching

    /// The candidates of the library and of the learned templates together (`RecognitionResult.merged`), as
    /// the event writes them.
    static func merged(
        library: [RecognitionResult.Candidate], learned: [RecognitionResult.Candidate], limit: Int
    ) -> [EventEncoder.Candidate] {
        RecognitionResult.merged(library: library, learned: learned, limit: limit).map {
            EventEncoder.Candidate(
                name: $0.candidate.name, score: $0.candidate.score, learned: $0.learned,
                backward: $0.candidate.drawnBackward, rotation: $0.candidate.rotation)
        }
    }
}
