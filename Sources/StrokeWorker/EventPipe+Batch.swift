import StrokeProtocol

extension EventPipe.Batch {
    // MARK: - Filling

    /// Appends one event.
    mutating func append(topic: UnsafeRawBufferPointer, payload: [UInt8]) {
        let start = bytes.count
        bytes.append(contentsOf: topic)
        let topicEnd = bytes.count
        bytes.append(contentsOf: payload)
        entries.append(.init(start: start, topicEnd: topicEnd, end: bytes.count, request: nil))
    }

    /// Appends a finished stroke to recognize, copying its session id and points.
    mutating func append(_ request: RecognitionRequest) {
        let start = bytes.count
        bytes.append(contentsOf: request.context.session)
        let topicEnd = bytes.count
        let first = points.count
        points.append(contentsOf: request.points)
        var learnedIndex: Int32 = -1
        if let templates = request.learned {
            learnedIndex = Int32(learned.count)
            learned.append(templates)
        }
        var choiceIndex: Int32 = -1
        if let choice = request.choice {
            choiceIndex = Int32(choices.count)
            choices.append(choice)
        }
        var gestureIndex: Int32 = -1
        if let gesture = request.gesture {
            gestureIndex = Int32(gestures.count)
            gestures.append(gesture)
        }
        var scoresIndex: Int32 = -1
        if let scores = request.gestureScores {
            scoresIndex = Int32(gestureScores.count)
            gestureScores.append(scores)
        }
        if let feedback = request.tiltFeedback, tiltFeedback == nil { tiltFeedback = feedback.takeUnretainedValue() }
        entries.append(
            .init(
                start: start, topicEnd: topicEnd, end: topicEnd,
                request: .init(
                    points: first..<points.count, eventSequence: request.context.eventSequence,
                    sequence: request.context.sequence, stroke: request.context.stroke,
                    pointer: request.context.pointer, slot: request.slot, learned: learnedIndex, choice: choiceIndex,
                    gesture: gestureIndex, checkmarkFired: request.checkmarkFired,
                    followsTilt: request.tiltFeedback != nil, minimumScore: request.minimumScore, turn: request.turn,
                    gestureScores: scoresIndex)))
    }

    // MARK: - Reading

    /// Calls `body` with each event's topic and payload, in order, recognizing the strokes on the way with the
    /// recognizers of `registry`, the calling thread's own copy (their events are encoded into `writer`). Their
    /// outcomes are added to `metrics`, and the matches' tilt samples posted to `tiltFeedback`, together after the
    /// last event; `tiltSamples` is the caller's scratch for them, kept from batch to batch.
    func forEachEvent(
        encodingRequestsWith writer: inout JSONWriter, registry: LibraryRegistry, metrics: WorkerMetrics,
        tiltSamples: inout [TiltFeedback.Sample],
        _ body: (_ topic: UnsafeRawBufferPointer, _ payload: UnsafeRawBufferPointer) -> Void
    ) {
        tiltSamples.removeAll(keepingCapacity: true)
        var outcomes = WorkerMetrics.OutcomeCounts()
        defer {
            metrics.add(outcomes)
            tiltFeedback?.post(contentsOf: tiltSamples)
        }
        bytes.withUnsafeBytes { bytes in
            points.withUnsafeBufferPointer { points in
                for entry in entries {
                    let topic = UnsafeRawBufferPointer(rebasing: bytes[entry.start..<entry.topicEnd])
                    guard let request = entry.request else {
                        body(topic, UnsafeRawBufferPointer(rebasing: bytes[entry.topicEnd..<entry.end]))
                        continue
                    }
                    let outcome = RecognitionRequest(
                        context: EventEncoder.Context(
                            session: topic, eventSequence: request.eventSequence, sequence: request.sequence,
                            stroke: request.stroke, pointer: request.pointer),
                        recognizer: registry.recognizer(request.slot), library: registry.name(request.slot),
                        slot: request.slot, points: UnsafeBufferPointer(rebasing: points[request.points]),
                        learned: request.learned >= 0 ? learned[Int(request.learned)] : nil,
                        choice: request.choice >= 0 ? choices[Int(request.choice)] : nil,
                        gesture: request.gesture >= 0 ? gestures[Int(request.gesture)] : nil,
                        checkmarkFired: request.checkmarkFired,
                        tiltFeedback: request.followsTilt ? tiltFeedback.map { Unmanaged.passUnretained($0) } : nil,
                        minimumScore: request.minimumScore,
                        gestureScores: request.gestureScores >= 0 ? gestureScores[Int(request.gestureScores)] : nil,
                        turn: request.turn
                    ).encode(into: &writer, tiltSamples: &tiltSamples)
                    outcomes.count(outcome)
                    writer.bytes.withUnsafeBytes { body(topic, $0) }
                }
            }
        }
    }
}
