extension CheckmarkDetector {
    /// The times of a batch of points, read where the caller keeps them: a `Double` every `stride` bytes from
    /// `base`, as in an array of the caller's point structs. The detector reads the time of every point that emits
    /// a resampled point; a column of memory, unlike a closure, is read without a call.
    public struct TimeColumn {
        /// The first point's time.
        public let base: UnsafeRawPointer
        /// Bytes from one point's time to the next.
        public let stride: Int

        /// A column of `Double`s `stride` bytes apart from `base`.
        public init(base: UnsafeRawPointer, stride: Int) {
            self.base = base
            self.stride = stride
        }

        /// The times of the points of `buffer`, whose time is the stored property `time` of `Point` (a computed
        /// one has no place in memory: a precondition). An empty buffer gives a column that must not be read.
        /// Inlinable, so that the caller's compiler finds the offset of its point type's field without a call.
        @inlinable
        public init<Point>(_ buffer: UnsafeBufferPointer<Point>, time: KeyPath<Point, Double>) {
            guard let offset = MemoryLayout<Point>.offset(of: time) else {
                preconditionFailure("TimeColumn: the time must be a stored property of the point")
            }
            let start = UnsafeRawPointer(buffer.baseAddress) ?? UnsafeRawPointer(bitPattern: 8)!
            self.init(base: start + offset, stride: MemoryLayout<Point>.stride)
        }

        /// The time of point `index`.
        @inline(__always)
        public subscript(index: Int) -> Double {
            base.load(fromByteOffset: index * stride, as: Double.self)
        }
    }
}
