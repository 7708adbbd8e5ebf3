/// The compact little-endian binary form of input messages.
///
/// ```
/// offset size  field
///      0    1  magic 0xB1
///      1    1  version (1)
///      2    1  type: 1 begin, 2 points, 3 end, 4 cancel, 5 close
///      3    1  flags: bit 0 = each point carries a pressure
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
        guard let kind = InputMessage.Kind(rawValue: bytes[2]), kind != .options else {
            throw ProtocolError(.unknownType, "unknown binary message type \(bytes[2])")
        }
        let flags = bytes[3]
        guard flags & ~1 == 0 else {
            throw ProtocolError(.malformedBinary, "unknown flags 0x\(String(flags, radix: 16))")
        }
        let hasPressure = flags & 1 != 0
        let count = Int(UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: 14, as: UInt16.self)))
        let stride = hasPressure ? 20 : 16
        guard bytes.count == headerSize + count * stride else {
            throw ProtocolError(
                .malformedBinary,
                "binary message declares \(count) point(s) (\(headerSize + count * stride) bytes) but is \(bytes.count) bytes"
            )
        }
        guard count <= maximumPoints else {
            throw ProtocolError(.tooManyPoints, "a message carries at most \(maximumPoints) points, got \(count)")
        }
        if kind == .points && count == 0 { throw ProtocolError(.invalidField, "points message with no points") }
        message.kind = kind
        message.sequence = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
        message.stroke = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
        message.pointer = UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: 12, as: UInt16.self))
        message.points.reserveCapacity(count)
        var offset = headerSize
        for index in 0..<count {
            let x = Float(
                bitPattern: UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
            let y = Float(
                bitPattern: UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)))
            let t = Double(
                bitPattern: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)))
            var pressure: Float?
            if hasPressure {
                pressure = Float(
                    bitPattern: UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 16, as: UInt32.self)))
            }
            guard x.isFinite, y.isFinite, t.isFinite, pressure?.isFinite ?? true else {
                throw ProtocolError(.nonFinite, "point \(index) has a NaN or infinite value")
            }
            message.points.append(WirePoint(x: Double(x), y: Double(y), t: t, pressure: pressure))
            offset += stride
        }
    }

    /// Encodes a message (not `.options`, which is JSON only) into `buffer`, replacing its contents.
    public static func encode(_ message: InputMessage, into buffer: inout [UInt8]) {
        precondition(message.kind != .options, "options messages are JSON only")
        precondition(message.points.count <= Int(UInt16.max), "at most 65,535 points per binary message")
        let hasPressure = message.points.contains { $0.pressure != nil }
        buffer.removeAll(keepingCapacity: true)
        buffer.append(magic)
        buffer.append(version)
        buffer.append(message.kind.rawValue)
        buffer.append(hasPressure ? 1 : 0)
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
