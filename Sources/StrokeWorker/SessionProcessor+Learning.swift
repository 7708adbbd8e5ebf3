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
        let existing = templates(of: session)
        let held = existing?.count ?? 0
        guard !stroke.overflowed else {
            emitError(
                &session, id: id, code: "too_many_points",
                "stroke \(stroke.id) passed \(configuration.maxPointsPerStroke) points; \"\(name)\" not learned")
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
        let templates: LearnedTemplates
        do {
            templates = try stroke.storage.withPoints { points in
                try LearnedTemplates.learning(
                    name, points: points, to: existing?.compiled(for: slot, entry: entry, metrics: metrics),
                    entry: entry, slot: slot, metrics: metrics)
            }
        } catch {
            emitError(
                &session, id: id, code: "degenerate_stroke",
                "stroke \(stroke.id) has \(stroke.pointCount) point(s) and no extent to learn; \"\(name)\" not "
                    + "learned")
            return
        }
        learned[session.key] = templates
        metrics.templatesLearned.add(1, ordering: .relaxed)
        session.eventSequence += 1
        EventEncoder.learned(
            context(session, id: id, stroke: stroke), name: name, templates: templates.count,
            points: stroke.pointCount, into: &writer)
        publish(id)
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
