import StrokeProtocol
import StrokeRecognition

// MARK: - Learning

extension SessionProcessor.Core {
    /// Applies an `options` message to the session's learned templates: `forget`, and a new library or
    /// orientation, which they follow.
    mutating func applyLearningOptions(_ session: inout Session, id: UnsafeRawBufferPointer) {
        guard let options = message.options else { return }
        guard var templates = templates(of: session) else {
            if let name = options.forget, name != LearnedName.all {
                emitError(&session, id: id, code: "unknown_template", "the session learned no gesture \"\(name)\"")
            }
            return
        }
        if let name = options.forget {
            if name != LearnedName.all && !templates.contains(name) {
                emitError(&session, id: id, code: "unknown_template", "the session learned no gesture \"\(name)\"")
            }
            guard
                let kept = templates.forgetting(
                    name, entry: registry.entries[Int(templates.slot.library)],
                    metrics: metrics)
            else {
                forgetAll(session)
                return
            }
            templates = kept
        }
        // Learned templates follow the session's library and orientation.
        let slot = LibraryRegistry.Slot(library: session.library, invariant: session.invariant)
        learned[session.key] = templates.compiled(
            for: slot, entry: registry.entries[Int(session.library)], metrics: metrics)
    }

    /// Learns an ended stroke as a template of the session's own, named `name`, with a `learned` event; or
    /// says with an error event why it was not learned.
    mutating func learn(
        _ stroke: OpenStroke, as name: String, session: inout Session, id: UnsafeRawBufferPointer
    ) {
        let pointCount = registry.entries[Int(session.library)].recognizer(invariant: session.invariant)
            .configuration.pointCount
        // All the matcher keeps of a stroke: one of 10,000 points keeps 512 bytes, not 160 KB.
        let points = stroke.storage.withPoints { Array($0) }
        let template = GestureTemplate(
            name: name, points: points.count >= 2 ? StrokeGeometry.resample(points, count: pointCount) : points)
        let minimum = minimumSize(of: session)
        let tooSmall = points.withUnsafeBufferPointer { Self.isTooSmall($0, minimum: minimum) }
        learn(
            template, received: stroke.pointCount, overflowed: stroke.overflowed, tooSmall: tooSmall, strokes: nil,
            session: &session, id: id)
    }

    /// Learns `template`, the session's last stroke or gesture (`strokes`: its strokes' ids, for a gesture of
    /// several; `received`: the points they came with; `tooSmall`: whether they are smaller than the session's
    /// minimum size), with a `learned` event; or says with an error event why it was not learned.
    mutating func learn(
        _ template: GestureTemplate, received: Int, overflowed: Bool, tooSmall: Bool, strokes: [UInt32]?,
        session: inout Session, id: UnsafeRawBufferPointer
    ) {
        let name = template.name
        let existing = templates(of: session)
        let held = existing?.count ?? 0
        let what =
            strokes.map { "the gesture of strokes \($0.map(String.init).joined(separator: ", "))" }
            ?? "stroke \(message.stroke)"
        guard !overflowed else {
            emitError(
                &session, id: id, code: "too_many_points",
                "\(what) passed \(configuration.maxPointsPerStroke) points per stroke; \"\(name)\" not learned")
            return
        }
        // A tap could match nothing, whatever the limits: said before them.
        guard LearnedTemplates.hasExtent(template) else {
            emitError(
                &session, id: id, code: "degenerate_stroke",
                "\(what) has \(String(counting: received, "point")) and no extent to learn; \"\(name)\" not learned")
            return
        }
        guard !tooSmall else {
            emitError(
                &session, id: id, code: "too_small",
                "\(what) is smaller than the session's minimum size, \(minimumSize(of: session)), on both sides; "
                    + "\"\(name)\" not learned")
            return
        }
        guard held < configuration.maxSessionTemplates else {
            emitError(
                &session, id: id, code: "too_many_templates",
                "a session learns at most \(configuration.maxSessionTemplates) templates; \"\(name)\" not learned")
            return
        }
        guard metrics.learnedTemplates.load(ordering: .relaxed) < configuration.maxLearnedTemplates else {
            emitError(
                &session, id: id, code: "too_many_templates",
                "the worker holds \(configuration.maxLearnedTemplates) learned templates, its limit; \"\(name)\" "
                    + "not learned")
            return
        }
        let slot = LibraryRegistry.Slot(library: session.library, invariant: session.invariant)
        let entry = registry.entries[Int(session.library)]
        let before = existing?.compiled(for: slot, entry: entry, metrics: metrics)
        let nearest = Self.nearest(
            to: template, recognizer: entry.recognizer(invariant: session.invariant), learned: before,
            turn: matchTurn(of: session))
        let templates: LearnedTemplates
        do {
            templates = try LearnedTemplates.learning(template, to: before, entry: entry, slot: slot, metrics: metrics)
        } catch {
            emitError(
                &session, id: id, code: "degenerate_stroke",
                "\(what) has \(String(counting: received, "point")) and no extent to learn; \"\(name)\" not learned")
            return
        }
        learned[session.key] = templates
        noteSettingsChanged(session.key)
        metrics.templatesLearned.add(1, ordering: .relaxed)
        session.eventSequence += 1
        var eventContext = context(session, id: id)
        eventContext.stroke = message.stroke
        eventContext.pointer = message.pointer
        EventEncoder.learned(
            eventContext, name: name, templates: templates.count, points: received, strokes: strokes, nearest: nearest,
            into: &writer)
        publish(id)
    }

    /// The gesture other than `template`'s own that it comes nearest to, among the session's library and the
    /// gestures it learned before: what strokes drawn like it may be taken for (the `learned` event's `nearest`).
    /// Learning is rare, so this recognition runs on the lane, once per learned template. The library's templates
    /// see it turned by `turn`, as they will see the session's strokes (`RecognitionRequest.turn`).
    static func nearest(
        to template: GestureTemplate, recognizer: Recognizer, learned: LearnedTemplates?, turn: Int8 = 0
    ) -> EventEncoder.Candidate? {
        // One more candidate than a match lists: the template's own gesture may be among them.
        let limit = recognizer.configuration.topK + 1
        let candidates = try? template.points.withUnsafeBufferPointer { (points) throws(RecognitionError) in
            try template.strokeStarts.withUnsafeBufferPointer { (starts) throws(RecognitionError) in
                let fromLearned = try learned.map { (learned) throws(RecognitionError) in
                    try learned.recognizer.withPreparedStroke(points: points, strokeStarts: starts) {
                        learned.recognizer.recognize($0).candidates
                    }
                }
                func fromLibrary(_ points: UnsafeBufferPointer<SIMD2<Double>>) throws(RecognitionError)
                    -> [RecognitionResult.Candidate]
                {
                    try recognizer.withPreparedStroke(points: points, strokeStarts: starts) {
                        recognizer.recognize($0).candidates
                    }
                }
                let turn = RecognitionRequest.turn(turn, for: recognizer)
                let library =
                    turn != 0
                    ? try RecognitionRequest.withTurned(points, by: turn, fromLibrary) : try fromLibrary(points)
                return LearnedTemplates.merged(library: library, learned: fromLearned ?? [], limit: limit)
            }
        }
        return candidates?.first { $0.name != template.name && $0.score > 0 }
    }

    /// The session's learned templates, if it has any.
    @inline(__always)
    func templates(of session: Session) -> LearnedTemplates? {
        learned.isEmpty ? nil : learned[session.key]
    }

    /// Drops the session's learned templates.
    mutating func forgetAll(_ session: Session) {
        if !learned.isEmpty { learned[session.key] = nil }
    }
}
