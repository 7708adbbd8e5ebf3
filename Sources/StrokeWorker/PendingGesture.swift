import StrokeRecognition

/// The strokes of a session's gesture so far, in a session that groups its strokes into gestures
/// (`options.multistroke`): they ended, and wait for the next stroke, or for the wait to pass.
struct PendingGesture {
    /// The most strokes in one gesture: the one that ends with this many is matched at once.
    static let maximumStrokes = 8

    /// Their points, joined end to start in the order the strokes ended.
    var points: [SIMD2<Double>] = []
    /// Where each stroke after the first begins in `points`.
    var strokeStarts: [Int] = []
    /// The strokes' ids, in the order they ended.
    var strokes: [UInt32] = []
    /// The pointer of the last stroke.
    var pointer: UInt16 = 0
    /// The sequence number of the last stroke's `end`, which the result answers.
    var sequence: UInt32 = 0
    /// Set when a stroke passed the per-stroke point limit: the gesture ends without a match.
    var overflowed = false
    /// The checkmark detector's verdict on the gesture's only stroke, where it ran on all of it with times it could
    /// read (`RecognitionRequest.checkmarkFired`); nil once a second stroke joins.
    var checkmarkFired: Bool?
    /// When it is matched unless a stroke of the session begins first (the lane's clock, in milliseconds); nil
    /// while one is open.
    var deadline: UInt64?

    /// Adds an ended stroke's points (none for a stroke that ended empty or overflowed).
    mutating func append(stroke id: UInt32, pointer: UInt16, points: UnsafeBufferPointer<SIMD2<Double>>) {
        if !points.isEmpty {
            if !self.points.isEmpty { strokeStarts.append(self.points.count) }
            self.points.append(contentsOf: points)
        }
        strokes.append(id)
        self.pointer = pointer
    }

    /// The gesture as a template of `name` to learn, each stroke resampled to at most `pointCount` points (all
    /// that the matcher keeps of it).
    func template(named name: String, pointCount: Int) -> GestureTemplate {
        var whole = GestureTemplate(name: name, points: points)
        whole.strokeStarts = strokeStarts
        var template = GestureTemplate(name: name, points: [])
        for stroke in whole.strokes {
            if !template.points.isEmpty { template.strokeStarts.append(template.points.count) }
            template.points +=
                stroke.count > pointCount ? StrokeGeometry.resample(Array(stroke), count: pointCount) : Array(stroke)
        }
        return template
    }
}

/// A gesture's strokes, for its recognition request and its result event.
struct GestureStrokes: Sendable {
    /// Where each stroke after the first begins in the request's points.
    var starts: [Int]
    /// The strokes' ids, for the event's `strokes`.
    var ids: [UInt32]
}
