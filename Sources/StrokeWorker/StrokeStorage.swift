import CCPUFeatures
import StrokeProtocol
import StrokeRecognition

/// The memory of one open stroke, in one allocation: a header with the point count and the checkmark detector's
/// state, then the detector's resampled points (x, y and time), then the stroke's points.
///
/// A message for a stroke reads its header and writes near the ends of the two areas. Kept apart (the points in
/// an array, the detector in another, the stroke in the session's array of strokes), the same message read three
/// buffer headers, each one more dependent cache miss when 10,000 open strokes do not fit in the caches.
/// The storage has reference semantics: an `OpenStroke` owns it, and the processor's pool takes it back when the
/// stroke ends.
final class StrokeStorage: ManagedBuffer<StrokeStorage.Header, SIMD2<Double>> {
    /// What a message reads first: the detector's state, then the counts.
    struct Header {
        var detector: CheckmarkDetector.State
        var pointCount = 0
        /// Points that fit after the detector's area.
        var pointCapacity: Int
        /// Elements (pairs of doubles) at the front that hold the detector's buffer. Derivable from the detector's
        /// `bufferCount`, but kept here so that reaching the points does not read the detector's shared settings.
        /// 32 bits, so that `checkmarkHeld` fits beside it and the header stays 112 bytes.
        private let detectorElementCount: Int32
        /// Whether the detector fired while the stroke was still smaller than its session's minimum size: its
        /// `checkmark` waits until the stroke reaches that size (`SessionProcessor.Core.publishCheckmark`).
        var checkmarkHeld = false
        /// The turn, in whole degrees, that the detector gives the stroke's points before it judges them: its
        /// session's tilt estimate's correction (`TiltEstimate.correction`), set when the stroke begins; 0 for none.
        var turnDegrees: Int8 = 0

        init(detector: CheckmarkDetector.State, pointCapacity: Int, detectorElements: Int) {
            self.detector = detector
            self.pointCapacity = pointCapacity
            self.detectorElementCount = Int32(detectorElements)
        }

        /// Elements (pairs of doubles) at the front that hold the detector's buffer.
        @inline(__always) var detectorElements: Int { Int(detectorElementCount) }
    }

    /// Points that a new stroke has room for before it grows: the data set's strokes have 79 on average.
    static let initialPointCapacity = 128

    /// A storage with room for at least `pointCapacity` points and a detector in its initial state.
    static func make(pointCapacity: Int, detector: CheckmarkDetector.State) -> StrokeStorage {
        let detectorElements = (detector.bufferCount + 1) / 2
        let buffer = create(minimumCapacity: detectorElements + max(pointCapacity, 1)) { buffer in
            Header(
                detector: detector, pointCapacity: buffer.capacity - detectorElements,
                detectorElements: detectorElements)
        }
        // The detector reads only what it wrote, but a growing stroke copies the whole area: initialized once here.
        buffer.withUnsafeMutablePointerToElements { $0.initialize(repeating: .zero, count: detectorElements) }
        return unsafeDowncast(buffer, to: StrokeStorage.self)
    }

    // MARK: - Points

    // The header is read and written through its pointer, not the `header` property: a stored property of a class
    // is checked for exclusive access at run time, two runtime calls per access on the per-message path.

    /// Points stored.
    @inline(__always)
    var pointCount: Int {
        get { withUnsafeMutablePointerToHeader { $0.pointee.pointCount } }
        set { withUnsafeMutablePointerToHeader { $0.pointee.pointCount = newValue } }
    }

    /// Points that fit before the storage must grow.
    @inline(__always)
    var pointCapacity: Int { withUnsafeMutablePointerToHeader { $0.pointee.pointCapacity } }

    /// The stroke's points so far.
    @inline(__always)
    func withPoints<Result>(_ body: (UnsafeBufferPointer<SIMD2<Double>>) throws -> Result) rethrows -> Result {
        try withUnsafeMutablePointers { header, elements in
            try body(
                UnsafeBufferPointer(start: elements + header.pointee.detectorElements, count: header.pointee.pointCount)
            )
        }
    }

    /// Appends points; there must be room (`pointCount + points.count <= pointCapacity`).
    @inline(__always)
    func append(_ points: UnsafeBufferPointer<WirePoint>) {
        withUnsafeMutablePointers { header, elements in
            let end = elements + header.pointee.detectorElements + header.pointee.pointCount
            for k in points.indices { (end + k).initialize(to: SIMD2(points[k].x, points[k].y)) }
            header.pointee.pointCount += points.count
        }
    }

    /// A copy with room for at least `pointCapacity` points: the same detector state, buffer and points.
    func grown(toHold pointCapacity: Int) -> StrokeStorage {
        withUnsafeMutablePointers { header, elements in
            let copy = StrokeStorage.make(pointCapacity: pointCapacity, detector: header.pointee.detector)
            copy.withUnsafeMutablePointers { newHeader, newElements in
                let used = header.pointee.detectorElements + header.pointee.pointCount
                newElements.initialize(from: elements, count: used)
                newHeader.pointee.pointCount = header.pointee.pointCount
                newHeader.pointee.checkmarkHeld = header.pointee.checkmarkHeld
                newHeader.pointee.turnDegrees = header.pointee.turnDegrees
            }
            return copy
        }
    }

    /// Drops the points and resets the detector, keeping the memory for the next stroke.
    func reset() {
        withUnsafeMutablePointerToHeader { header in
            header.pointee.pointCount = 0
            header.pointee.checkmarkHeld = false
            header.pointee.turnDegrees = 0
            header.pointee.detector.reset()
        }
    }

    // MARK: - Detector

    /// Feeds the detector the last `count` points appended (as
    /// `CheckmarkDetector.State.add(positions:times:buffer:)`), read where they are stored, with their times
    /// `times`, turned by `turnDegrees` if that is set; its buffer is this storage's front.
    @inline(__always)
    func detectAppended(_ count: Int, times: CheckmarkDetector.TimeColumn) -> CheckmarkDetector.Detection? {
        withUnsafeMutablePointers { header, elements in
            let doubles = 2 * header.pointee.detectorElements
            let appended = UnsafeBufferPointer(
                start: elements + header.pointee.detectorElements + header.pointee.pointCount - count, count: count)
            return UnsafeMutableRawPointer(elements).withMemoryRebound(to: Double.self, capacity: doubles) {
                buffer in
                guard header.pointee.turnDegrees != 0 else {
                    return header.pointee.detector.add(positions: appended, times: times, buffer: buffer)
                }
                return Self.detectTurned(appended, times: times, header: header, buffer: buffer)
            }
        }
    }

    /// `detectAppended` for a stroke whose points are turned: out of line, so that the upright path stays as short
    /// as it was (the turn's cosine and sine come from a table: computed, they cost a single-point message 134
    /// instructions).
    @inline(never)
    private static func detectTurned(
        _ appended: UnsafeBufferPointer<SIMD2<Double>>, times: CheckmarkDetector.TimeColumn,
        header: UnsafeMutablePointer<Header>, buffer: UnsafeMutablePointer<Double>
    ) -> CheckmarkDetector.Detection? {
        let turn = CheckmarkDetector.turn(wholeDegrees: header.pointee.turnDegrees)
        return header.pointee.detector.add(positions: appended, times: times, buffer: buffer, turn: turn)
    }

    /// The turn, in whole degrees, that the detector gives the stroke's points (`Header.turnDegrees`).
    var turnDegrees: Int8 {
        get { withUnsafeMutablePointerToHeader { $0.pointee.turnDegrees } }
        set { withUnsafeMutablePointerToHeader { $0.pointee.turnDegrees = newValue } }
    }

    /// Whether the detector fired on the stroke.
    var checkmarkFired: Bool {
        withUnsafeMutablePointerToHeader { $0.pointee.detector.detection != nil }
    }

    /// Whether the detector fired while the stroke was smaller than its session's minimum size, and the
    /// `checkmark` waits for the stroke to reach it.
    @inline(__always)
    var checkmarkHeld: Bool {
        get { withUnsafeMutablePointerToHeader { $0.pointee.checkmarkHeld } }
        set { withUnsafeMutablePointerToHeader { $0.pointee.checkmarkHeld = newValue } }
    }

    /// Whether the detector held the stroke back as a check drawn under a millisecond after its first point: its
    /// times look like seconds (`CheckmarkDetector.State.timesLookLikeSeconds`).
    var timesLookLikeSeconds: Bool {
        withUnsafeMutablePointerToHeader { $0.pointee.detector.timesLookLikeSeconds }
    }

    // MARK: - Prefetching

    /// Asks for the header (the detector's state and the point count) of the object at `start` to be fetched.
    @inline(__always)
    static func prefetchHeader(at start: UnsafeRawPointer) {
        stroke_prefetch(start)
        stroke_prefetch(start + 64)
    }

    /// Asks for the lines the next points are written to, and the resampled points the detector writes next, to
    /// be fetched; reads the header.
    @inline(__always)
    func prefetchTail() {
        withUnsafeMutablePointers { header, elements in
            let detectorElements = header.pointee.detectorElements
            stroke_prefetch(elements + detectorElements + header.pointee.pointCount)
            let resampled = header.pointee.detector.resampledCount
            // The detector's x, y and time areas, each a third of its `bufferCount` doubles, held in
            // `detectorElements` pairs of doubles (rounded up): the stride without reading the detector's settings.
            let stride = 2 * detectorElements / 3
            let xs = UnsafeRawPointer(elements).assumingMemoryBound(to: Double.self)
            let ys = xs + stride
            stroke_prefetch(xs + resampled)
            stroke_prefetch(ys + resampled)
            stroke_prefetch(ys + stride + resampled)
            // The detector's first test reads a few points back, often on the line before.
            let back = max(0, resampled - 4)
            stroke_prefetch(xs + back)
            stroke_prefetch(ys + back)
        }
    }
}
