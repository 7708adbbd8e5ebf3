extension CheckmarkDetector {
    /// A checkmark detector without its buffer of resampled points: the caller passes `bufferCount` doubles of
    /// its own to every `add`, always the same memory for one stroke.
    ///
    /// The worker keeps that buffer and the stroke's points in one allocation, beside this state, so that a
    /// message touches one allocation instead of three. `CheckmarkDetector` is this state with an array of its
    /// own; both give the same detections.
    public struct State: Sendable {
        // Hot first: a batch reads and writes the walk, the point count and the tuning's reference (64 bytes),
        // and touches `detected` only when the detector fires. 88 bytes in all, so that the worker's header of an
        // open stroke (`StrokeStorage.Header`) stays 112.

        /// The online resampling: its state is copied into locals for a batch of 4 points or more and back after it.
        /// Visible to inlined code for `resampledCount` alone, which the worker reads per message.
        @usableFromInline private(set) var walk: Walk
        /// Whether a point that passed every test was held back under a millisecond after the first point (here,
        /// in the walk's last two bytes of padding).
        private var heldWithinAMillisecond = false
        /// Number of points fed so far.
        private var pointsSeen = 0
        private let settings: Settings
        /// The time of the stroke's first point, for `minimumDuration`.
        private var startTime = 0.0
        /// The detection's point and time, once `walk.fired`: not an optional, whose tag byte took the state to 96
        /// bytes.
        private var detected = Detection(pointIndex: 0, time: 0)

        /// The detection, once it has happened; it is never reported twice for a stroke.
        public var detection: Detection? { walk.fired ? detected : nil }

        /// Creates the state of a detector for one stroke. Copies of a fresh state share its tuning object: a
        /// caller with many strokes keeps one and copies it, so that the tuning read for every batch stays in the
        /// cache.
        public init(configuration: CheckmarkConfiguration = .default) {
            self.settings = Settings(configuration)
            self.walk = Walk(spacing: configuration.initialSpacing ?? 0)
        }

        /// The tuning in use.
        public var configuration: CheckmarkConfiguration { settings.configuration }

        /// Doubles of buffer every `add` needs: x, y and time of `capacity + 1` resampled points.
        public var bufferCount: Int { 3 * settings.room }

        /// Number of points fed so far.
        public var pointCount: Int { pointsSeen }

        /// Resampled points in the buffer: the next one is written at this index of the x and the y halves.
        ///
        /// Inlinable: the worker reads it for every message it fetches ahead, and a call copied the whole state
        /// (88 bytes) to the stack first.
        @inlinable public var resampledCount: Int { Int(walk.count) }

        /// Whether the stroke looked like a check under a millisecond after its first point, and was held back by
        /// `minimumDuration`: its times advance as if they were seconds, not milliseconds, and it will not fire.
        public var timesLookLikeSeconds: Bool { heldWithinAMillisecond && detection == nil }

        /// Forgets the stroke, to start the next one (the buffer needs no clearing).
        public mutating func reset() {
            heldWithinAMillisecond = false
            walk = Walk(spacing: configuration.initialSpacing ?? 0)
            pointsSeen = 0
        }

        /// Feeds a batch of points; returns the detection if one of them fired it. `buffer` holds `bufferCount`
        /// doubles: the resampled points, x in `0..<room`, y in `room..<2·room` (apart, so that the corner search
        /// runs over SIMD vectors) and the time of the input point that emitted each in `2·room..<3·room`
        /// (`room` = `bufferCount / 3`), of which the first `count` are in use; pass the same memory, with what
        /// earlier calls left in it, for the whole stroke.
        @discardableResult
        public mutating func add(
            contentsOf points: UnsafeBufferPointer<StrokePoint>, buffer: UnsafeMutablePointer<Double>
        ) -> Detection? {
            add(count: points.count, position: { points[$0].position }, time: { points[$0].time }, buffer: buffer)
        }

        /// Feeds a batch of positions, for callers that keep points in a layout of their own, with their times
        /// read where they are (`times[k]` for the position `k`). The same as `add(contentsOf:buffer:)` otherwise.
        @discardableResult
        public mutating func add(
            positions: UnsafeBufferPointer<SIMD2<Double>>, times: TimeColumn, buffer: UnsafeMutablePointer<Double>
        ) -> Detection? {
            add(count: positions.count, position: { positions[$0] }, time: { times[$0] }, buffer: buffer)
        }

        /// Feeds a batch of positions as `add(positions:times:buffer:)` does, each turned about the origin first by
        /// the angle whose cosine and sine `turn` holds (`CheckmarkDetector.turn(degrees:)`): the detector judges
        /// the stroke of a tilted hand as if drawn upright (`TiltEstimate`). The same detections as the turned
        /// positions fed as they are.
        @discardableResult
        public mutating func add(
            positions: UnsafeBufferPointer<SIMD2<Double>>, times: TimeColumn, buffer: UnsafeMutablePointer<Double>,
            turn: SIMD2<Double>
        ) -> Detection? {
            add(
                count: positions.count,
                position: {
                    let point = positions[$0]
                    return SIMD2(turn.x * point.x - turn.y * point.y, turn.y * point.x + turn.x * point.y)
                }, time: { times[$0] }, buffer: buffer)
        }

        @inline(__always)
        private mutating func add(
            count batch: Int, position: (Int) -> SIMD2<Double>, time: (Int) -> Double,
            buffer: UnsafeMutablePointer<Double>
        ) -> Detection? {
            let first = pointsSeen
            pointsSeen += batch
            guard !walk.fired else { return nil }
            if first == 0 && batch > 0 { startTime = time(0) }
            // Whether firing at a point is held back: too soon after the first point. Read only for a point that
            // passed every other test; a stroke whose times do not advance is never held back.
            func held(_ offset: Int) -> Bool {
                let elapsed = time(offset) - startTime
                guard elapsed > 0 && elapsed < settings.minimumDuration else { return false }
                if elapsed < 1 { heldWithinAMillisecond = true }
                return true
            }
            let settings = self.settings
            let xs = buffer
            let ys = buffer + settings.room
            let ts = ys + settings.room
            var fired: Int?
            if batch < 4 {
                // Too few points to compute lengths ahead (one point per message, typically): straight to the walk,
                // where it is kept. Copied to locals and back, as for a longer batch below, the copy back read 16
                // bytes at a time what had been stored 8 at a time: a load that waits for the stores before it to
                // reach the cache, the buffer's too, which are often cold in a worker of many sessions (`perf
                // annotate` of the single-point worker: 36% of this function's samples, on that load).
                var from = 0
                repeat {
                    fired = Self.advance(
                        from..<batch, lengths: nil, position: position, time: time, walk: &self.walk, xs: xs, ys: ys,
                        ts: ts, settings: settings)
                    guard let offset = fired, held(offset) else { break }
                    (from, fired) = (offset + 1, nil)
                } while true
            } else {
                var walk = self.walk
                defer { self.walk = walk }
                // In chunks whose segment lengths are computed first, four square roots at a time: the walk then
                // waits for none.
                withUnsafeTemporaryAllocation(of: Double.self, capacity: Self.lengthChunk) { lengths in
                    var chunk = 0
                    while chunk < batch, fired == nil {
                        let end = min(batch, chunk + Self.lengthChunk)
                        let known =
                            end - chunk >= 4 && walk.hasLast
                            && StrokeGeometry.segmentLengths(
                                from: SIMD2(walk.lastX, walk.lastY), count: end - chunk,
                                position: { position(chunk + $0) }, into: lengths.baseAddress!
                            ).finite
                        var from = chunk
                        repeat {
                            fired = Self.advance(
                                from..<end, lengths: known ? UnsafePointer(lengths.baseAddress! + (from - chunk)) : nil,
                                position: position, time: time, walk: &walk, xs: xs, ys: ys, ts: ts, settings: settings)
                            guard let offset = fired, held(offset) else { break }
                            (from, fired) = (offset + 1, nil)
                        } while true
                        chunk = end
                    }
                }
            }
            guard let fired else { return nil }
            walk.fired = true
            detected = Detection(pointIndex: first + fired, time: time(fired))
            return detected
        }

        /// Feeds the points `range` of a batch to the walk, and each resampled point to the decision; returns the
        /// offset of the first point that passed it, if one did (the caller then checks `minimumDuration`).
        /// `lengths`, when given, holds the segment lengths from the previous point, starting with
        /// `range.lowerBound`'s.
        @inline(__always)
        private static func advance(
            _ range: Range<Int>, lengths: UnsafePointer<Double>?, position: (Int) -> SIMD2<Double>,
            time: (Int) -> Double, walk: inout Walk, xs: UnsafeMutablePointer<Double>,
            ys: UnsafeMutablePointer<Double>, ts: UnsafeMutablePointer<Double>, settings: Settings
        ) -> Int? {
            let capacity = settings.capacity
            let legPoints = settings.minimumLegPoints
            /// Feeds one point; whether it fired. `length` is its segment's, when known (the point is then finite).
            @inline(__always) func feed(_ offset: Int, length: Double?) -> Bool {
                let point = position(offset)
                guard length != nil || (point.x.isFinite && point.y.isFinite),
                    let last = append(
                        point, length: length, time: { time(offset) }, to: &walk, xs: xs, ys: ys, ts: ts,
                        capacity: capacity)
                else { return false }
                let count = Int(walk.count)
                assert(last == SIMD2(xs[count - 1], ys[count - 1]), "the early out reads the buffer's last point")
                return CheckmarkDetector.mightFire(
                    count: count, last: last, xs: xs, ys: ys, legPoints: legPoints, lowest: walk.lowestOnScreen,
                    bounds: settings.earlyOut)
                    && CheckmarkDetector.fires(
                        UnsafeBufferPointer(start: xs, count: count), UnsafeBufferPointer(start: ys, count: count),
                        times: ts, settings: settings)
            }
            // Two loops, so that neither tests per point which kind of batch it is in.
            if let lengths {
                for offset in range where feed(offset, length: lengths[offset - range.lowerBound]) { return offset }
            } else {
                for offset in range where feed(offset, length: nil) { return offset }
            }
            return nil
        }

        // MARK: - Resampling

        /// Points whose segment lengths are computed ahead of the walk (`StrokeGeometry.segmentLengths`; a
        /// non-finite one means the walk skips a point there, and the chunk falls back to one at a time), at most
        /// (on the stack: 512 bytes).
        static let lengthChunk = 64

        /// Resamples online; returns the last resampled point if this point emitted one or more (the caller's
        /// early out reads it from here, not back from the buffer it was just stored to), else nil. `known` is the
        /// length of the segment from the last point, when the caller has computed it; `time()` is the point's
        /// time, read only when it emits, and stored with each point it emits.
        @inline(__always)
        private static func append(
            _ point: SIMD2<Double>, length known: Double?, time: () -> Double, to walk: inout Walk,
            xs: UnsafeMutablePointer<Double>, ys: UnsafeMutablePointer<Double>, ts: UnsafeMutablePointer<Double>,
            capacity: Int
        ) -> SIMD2<Double>? {
            guard walk.hasLast else {
                walk.hasLast = true
                (walk.lastX, walk.lastY) = (point.x, point.y)
                var (count, lowest) = (Int(walk.count), walk.lowestOnScreen)
                push(point, time: time(), count: &count, lowest: &lowest, xs: xs, ys: ys, ts: ts)
                walk.count = Int32(count)
                walk.lowestOnScreen = -.infinity  // the points after the first count
                return nil
            }
            let previous = SIMD2(walk.lastX, walk.lastY)
            var remaining: Double
            if let known {
                remaining = known  // finite: the caller computed it so
            } else {
                remaining = StrokeGeometry.distance(previous, point)
                // A point so far from the last that their distance overflows (finite coordinates over about 1e154
                // apart) is skipped, as a non-finite one is: along an infinite segment the walk would emit NaNs.
                guard remaining < .infinity else { return nil }
            }
            (walk.lastX, walk.lastY) = (point.x, point.y)
            if !(walk.spacing > 0) {
                // Relative spacing: the first movement sets the scale.
                guard remaining > 0 else { return nil }
                walk.spacing = remaining
            }
            // Emit points every `spacing` along the segment, measured from its start: one square root per input
            // point, however many points it emits.
            let length = remaining
            let segmentStart = previous
            let delta = point - previous
            var travelled = 0.0
            var last: SIMD2<Double>?
            // The walk's fields in locals while points are pushed, written back only around `decimate`: in `walk` they
            // stayed in memory, which the stores to the buffer might alias, and each point's `lowestOnScreen` waited on
            // the store of the one before (`perf annotate`: 11% of `add`'s samples). The same values in the same order:
            // 22.1–22.9 ns a point in whole strokes instead of 25.1–26.6 (`stroke-bench --only recognizer`, three
            // alternating runs).
            var (count, lowest, sinceLast, spacing) = (
                Int(walk.count), walk.lowestOnScreen, walk.sinceLast, walk.spacing
            )
            while sinceLast + remaining >= spacing, remaining > 0 {
                travelled += spacing - sinceLast
                let next = segmentStart + delta * (travelled / length)
                push(next, time: time(), count: &count, lowest: &lowest, xs: xs, ys: ys, ts: ts)
                last = next
                remaining = max(0, length - travelled)
                sinceLast = 0
                if count > capacity {
                    (walk.count, walk.lowestOnScreen, walk.sinceLast) = (Int32(count), lowest, sinceLast)
                    decimate(&walk, xs: xs, ys: ys, ts: ts)
                    (count, lowest, sinceLast, spacing) = (
                        Int(walk.count), walk.lowestOnScreen, walk.sinceLast, walk.spacing
                    )
                    last = SIMD2(xs[count - 1], ys[count - 1])
                }
            }
            (walk.count, walk.lowestOnScreen, walk.sinceLast) = (Int32(count), lowest, sinceLast + remaining)
            return last
        }

        /// Appends a resampled point and its time at `count` (there is room: `count <= capacity` before it), and
        /// keeps `lowest` the largest y pushed: the walk's `count` and `lowestOnScreen`, in the caller's locals.
        @inline(__always)
        private static func push(
            _ point: SIMD2<Double>, time: Double, count: inout Int, lowest: inout Double,
            xs: UnsafeMutablePointer<Double>, ys: UnsafeMutablePointer<Double>, ts: UnsafeMutablePointer<Double>
        ) {
            xs[count] = point.x
            ys[count] = point.y
            ts[count] = time
            lowest = max(lowest, point.y)
            count += 1
        }

        /// Keeps every other resampled point and doubles the spacing. Never inlined: it runs once per doubling of
        /// a long stroke, and inlined it made `advance` too large for the optimizer to inline into `add`, whose
        /// closures were then called per point instead of specialized (`make profile`: 15,233 → 15,605
        /// instructions per batched binary message).
        @inline(never)
        private static func decimate(
            _ walk: inout Walk, xs: UnsafeMutablePointer<Double>, ys: UnsafeMutablePointer<Double>,
            ts: UnsafeMutablePointer<Double>
        ) {
            let droppedLast = walk.count % 2 == 0
            var write = 0
            for read in stride(from: 0, to: Int(walk.count), by: 2) {
                xs[write] = xs[read]
                ys[write] = ys[read]
                ts[write] = ts[read]
                write += 1
            }
            walk.count = Int32(write)
            // The points after the first that are left: the bound gets no looser than their lowest.
            walk.lowestOnScreen = -.infinity
            for index in 1..<write { walk.lowestOnScreen = max(walk.lowestOnScreen, ys[index]) }
            if droppedLast { walk.sinceLast += walk.spacing }
            walk.spacing *= 2
        }
    }
}
