/// The compact little-endian binary form of input messages.
///
/// ```
/// offset size  field
///      0    1  magic 0xB1
///      1    1  version (1)
///      2    1  type: 1 begin, 2 points, 3 end, 4 cancel, 5 close
///      3    1  flags: bit 0 = each point carries a pressure; bit 1 (end only) = the gesture's last stroke
///      4    4  seq (u32)
///      8    4  stroke (u32)
///     12    2  pointer (u16)
///     14    2  point count n (u16)
///     16    …  n points: x (f32), y (f32), t (f64) [, pressure (f32)]
/// ```
/// The payload is exactly `16 + n × 16` bytes, or `16 + n × 20` with pressure.
public enum BinaryCodec {
    /// The first byte of every binary message (never the first byte of a JSON text).
    public static let magic: UInt8 = 0xB1
    /// The version this codec reads and writes.
    public static let version: UInt8 = 1
    /// Header size in bytes.
    public static let headerSize = 16

    /// Decodes a binary message into `message` (already reset).
    static func decode(_ bytes: UnsafeRawBufferPointer, into message: inout InputMessage, maximumPoints: Int)
        throws(ProtocolError)
    {
        guard bytes.count >= headerSize else {
            throw ProtocolError(.malformedBinary, "binary message is \(bytes.count) bytes; the header alone is 16")
        }
        guard bytes[1] == version else {
            throw ProtocolError(.unsupportedVersion, "binary version \(bytes[1]) is not supported (1 is)")
        }
        guard let kind = InputMessage.Kind(rawValue: bytes[2]), kind != .options, kind != .ping else {
            throw ProtocolError(.unknownType, "unknown binary message type \(bytes[2])")
        }
        let flags = bytes[3]
        guard flags & ~3 == 0, flags & 2 == 0 || kind == .end else {
            throw ProtocolError(
                .malformedBinary,
                flags & ~3 == 0
                    ? "flag 0x2 (last stroke) on a \(kind.name) message; it belongs to end"
                    : "unknown flags 0x\(String(flags, radix: 16))")
        }
        let hasPressure = flags & 1 != 0
        let count = Int(UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: 14, as: UInt16.self)))
        let stride = hasPressure ? 20 : 16
        guard bytes.count == headerSize + count * stride else {
            throw ProtocolError(
                .malformedBinary,
                "binary message declares \(count) point\(count == 1 ? "" : "s") (\(headerSize + count * stride) bytes) "
                    + "but is \(bytes.count) bytes")
        }
        guard count <= maximumPoints else {
            throw ProtocolError(.tooManyPoints, "a message carries at most \(maximumPoints) points, got \(count)")
        }
        if kind == .points && count == 0 { throw ProtocolError(.invalidField, "points message with no points") }
        message.kind = kind
        message.sequence = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
        message.stroke = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
        message.pointer = UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: 12, as: UInt16.self))
        if flags & 2 != 0 { message.last = true }
        try decodePoints(bytes, count: count, hasPressure: hasPressure, into: &message.points)
    }

    /// Appends the `count` points of a message whose size has been checked to `points` (empty): one at a time
    /// below `Points.bulkFrom`, else in one bulk copy. On a NaN or infinite value, leaves `points` empty and throws,
    /// naming the first such point.
    @inline(__always)
    private static func decodePoints(
        _ bytes: UnsafeRawBufferPointer, count: Int, hasPressure: Bool, into points: inout [WirePoint]
    ) throws(ProtocolError) {
        var nonFinite = false
        if count < Points.bulkFrom {
            var bad: UInt64 = 0
            if let base = bytes.baseAddress {
                let stride = hasPressure ? 20 : 16
                for index in 0..<count {
                    points.append(Points.point(base + headerSize + index * stride, pressure: hasPressure, bad: &bad))
                }
            }
            nonFinite = bad >> 63 != 0
        } else {
            withUnsafeMutablePointer(to: &nonFinite) { nonFinite in
                points.append(
                    contentsOf: Points(bytes: bytes, count: count, hasPressure: hasPressure, nonFinite: nonFinite))
            }
        }
        guard nonFinite else { return }
        let bad =
            points.firstIndex { !($0.x.isFinite && $0.y.isFinite && $0.t.isFinite && ($0.pressure?.isFinite ?? true)) }
            ?? 0
        points.removeAll(keepingCapacity: true)
        throw ProtocolError(.nonFinite, "point \(bad) has a NaN or infinite value")
    }

    /// The points of a binary message (its size checked) as a sequence that `Array.append(contentsOf:)` copies in
    /// one pass: it reserves `underestimatedCount` (exact) and calls `_copyContents`, which decodes each point
    /// straight into the array's storage (the standard library's bulk-copy hook, which swift-collections' types
    /// customize too). A NaN or infinite value sets `nonFinite`, for the caller to report.
    private struct Points: Sequence, IteratorProtocol {
        /// Points from which the bulk copy pays for its set-up (about 170 instructions); fewer are appended one at
        /// a time (about 30 each). Measured with `make profile`: single points took 1,771 instructions per message
        /// appended, 1,912 copied in bulk.
        static let bulkFrom = 8

        let bytes: UnsafeRawBufferPointer
        let end: Int
        let stride: Int
        var offset = BinaryCodec.headerSize
        let nonFinite: UnsafeMutablePointer<Bool>

        init(bytes: UnsafeRawBufferPointer, count: Int, hasPressure: Bool, nonFinite: UnsafeMutablePointer<Bool>) {
            self.bytes = bytes
            self.stride = hasPressure ? 20 : 16
            self.end = BinaryCodec.headerSize + count * stride
            self.nonFinite = nonFinite
        }

        /// The points not yet read: exact, so that `Array` reserves room for all of them at once.
        var underestimatedCount: Int { (end &- offset) / stride }

        /// One point at a time; `Array` reads this way only what `_copyContents` left, which is nothing.
        mutating func next() -> WirePoint? {
            guard offset < end, let base = bytes.baseAddress else { return nil }
            var bad: UInt64 = 0
            defer { offset += stride }
            let point = Self.point(base + offset, pressure: stride == 20, bad: &bad)
            if bad >> 63 != 0 { nonFinite.pointee = true }
            return point
        }

        /// Decodes as many of the remaining points as fit into `buffer`, in a loop without per-point branches.
        func _copyContents(initializing buffer: UnsafeMutableBufferPointer<WirePoint>) -> (Points, Int) {
            let count = Swift.min(buffer.count, underestimatedCount)
            guard count > 0, let target = buffer.baseAddress, let source = bytes.baseAddress else { return (self, 0) }
            var bad: UInt64 = 0
            if stride == 20 {
                for index in 0..<count {
                    (target + index).initialize(
                        to: Self.point(source + (offset &+ index &* 20), pressure: true, bad: &bad))
                }
            } else {
                for index in 0..<count {
                    (target + index).initialize(
                        to: Self.point(source + (offset &+ index &* 16), pressure: false, bad: &bad))
                }
            }
            if bad >> 63 != 0 { nonFinite.pointee = true }
            var rest = self
            rest.offset &+= count &* stride
            return (rest, count)
        }

        /// The point at `at`: x and y as 32-bit floats, t as a 64-bit one, then the pressure if present. Sets the
        /// top bit of `bad` if a value is NaN or infinite, without a branch: a value's exponent bits, all set, plus
        /// the exponent's lowest bit carry into the bit above them (the sign's, or for 32-bit values bit 63 once
        /// shifted).
        @inline(__always)
        static func point(_ at: UnsafeRawPointer, pressure: Bool, bad: inout UInt64) -> WirePoint {
            let x = UInt32(littleEndian: at.loadUnaligned(as: UInt32.self))
            let y = UInt32(littleEndian: at.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
            let t = UInt64(littleEndian: at.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            bad |= UInt64(Self.exponentCarry(x) | Self.exponentCarry(y)) << 32
            bad |= (t & 0x7FF0_0000_0000_0000) &+ 0x0010_0000_0000_0000
            var point = WirePoint(
                x: Double(Float(bitPattern: x)), y: Double(Float(bitPattern: y)), t: Double(bitPattern: t))
            if pressure {
                let p = UInt32(littleEndian: at.loadUnaligned(fromByteOffset: 16, as: UInt32.self))
                bad |= UInt64(Self.exponentCarry(p)) << 32
                point.pressure = Float(bitPattern: p)
            }
            return point
        }

        /// Bit 31 is set exactly when the 32-bit float's exponent bits are all set (NaN or infinite).
        @inline(__always)
        private static func exponentCarry(_ bits: UInt32) -> UInt32 { (bits & 0x7F80_0000) &+ 0x0080_0000 }
    }

    /// Encodes a message (not `.options` or `.ping`, which are JSON only) into `buffer`, replacing its contents.
    public static func encode(_ message: InputMessage, into buffer: inout [UInt8]) {
        precondition(message.kind != .options && message.kind != .ping, "\(message.kind.name) messages are JSON only")
        precondition(message.points.count <= Int(UInt16.max), "at most 65,535 points per binary message")
        let hasPressure = message.points.contains { $0.pressure != nil }
        buffer.removeAll(keepingCapacity: true)
        buffer.append(magic)
        buffer.append(version)
        buffer.append(message.kind.rawValue)
        buffer.append((hasPressure ? 1 : 0) | (message.last && message.kind == .end ? 2 : 0))
        append(message.sequence, to: &buffer)
        append(message.stroke, to: &buffer)
        append(message.pointer, to: &buffer)
        append(UInt16(message.points.count), to: &buffer)
        for point in message.points {
            append(Float(point.x).bitPattern, to: &buffer)
            append(Float(point.y).bitPattern, to: &buffer)
            append(point.t.bitPattern, to: &buffer)
            if hasPressure { append((point.pressure ?? 0).bitPattern, to: &buffer) }
        }
    }

    /// Encodes a message into a new array.
    public static func encode(_ message: InputMessage) -> [UInt8] {
        var buffer = [UInt8]()
        encode(message, into: &buffer)
        return buffer
    }

    @inline(__always)
    private static func append<T: FixedWidthInteger>(_ value: T, to buffer: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { buffer.append(contentsOf: $0) }
    }
}
