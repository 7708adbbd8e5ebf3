/// Decodes input payloads of either form, told apart by the first byte: `0xB1` is binary, anything else is
/// read as JSON.
public struct InputDecoder: Sendable {
    /// The most points one message may carry. Default: `4096`.
    public var maximumPointsPerMessage: Int

    /// Creates a decoder.
    public init(maximumPointsPerMessage: Int = 4096) {
        self.maximumPointsPerMessage = maximumPointsPerMessage
    }

    /// Decodes `payload` into `message`, which is reset first (its point buffer keeps its capacity).
    public func decode(_ payload: UnsafeRawBufferPointer, into message: inout InputMessage) throws(ProtocolError) {
        message.reset()
        guard let first = payload.first else { throw ProtocolError(.malformedJSON, "empty payload") }
        if first == BinaryCodec.magic {
            try BinaryCodec.decode(payload, into: &message, maximumPoints: maximumPointsPerMessage)
        } else {
            try JSONInputDecoder.decode(payload, into: &message, maximumPoints: maximumPointsPerMessage)
        }
    }

    /// Decodes a payload given as bytes.
    public func decode(_ payload: [UInt8]) throws(ProtocolError) -> InputMessage {
        var message = InputMessage()
        let result: Result<Void, ProtocolError> = payload.withUnsafeBytes { raw in
            Result { () throws(ProtocolError) in try decode(raw, into: &message) }
        }
        try result.get()
        return message
    }
}
