import Foundation
import StrokeProtocol
import StrokeRecognition

@testable import StrokeWorker

/// A finished stroke handed over in an `EventPipe.Batch`, as a lane hands it to the thread that recognizes it.
enum BatchedRequest {
    /// Appends a request for `points` to a batch, reads the batch back as the recognizing thread does, and returns
    /// the event it publishes; `after` sees the batch once read.
    static func event(
        points: [SIMD2<Double>], registry: LibraryRegistry, slot: LibraryRegistry.Slot,
        gesture: GestureStrokes? = nil, choice: GestureChoice? = nil, checkmarkFired: Bool? = nil,
        after: (inout EventPipe.Batch) -> Void = { _ in }
    ) throws -> [String: Any] {
        var batch = EventPipe.Batch()
        let session = Array("player".utf8)
        session.withUnsafeBytes { id in
            points.withUnsafeBufferPointer { points in
                batch.append(
                    RecognitionRequest(
                        context: EventEncoder.Context(session: id, eventSequence: 1, sequence: 3, stroke: 1),
                        recognizer: registry.recognizer(slot), library: registry.name(slot), slot: slot,
                        points: points, choice: choice, gesture: gesture, checkmarkFired: checkmarkFired))
            }
        }
        var writer = JSONWriter()
        var tiltSamples: [TiltFeedback.Sample] = []
        var payloads = [[UInt8]]()
        batch.forEachEvent(
            encodingRequestsWith: &writer, registry: registry, metrics: WorkerMetrics(), tiltSamples: &tiltSamples
        ) { _, payload in
            payloads.append(Array(payload))
        }
        after(&batch)
        guard payloads.count == 1,
            let event = try JSONSerialization.jsonObject(with: Data(payloads[0])) as? [String: Any]
        else { throw CocoaError(.coderReadCorrupt) }
        return event
    }
}
