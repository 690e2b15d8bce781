import Foundation
import KafkaIO
import UploadEngine

extension CloudEventEncoder {
    /// The CloudEvents Kafka binding's structured mode (§2.2): every event record says what its value is. Made once.
    static let headers = [KafkaHeader("content-type", "application/cloudevents+json; charset=UTF-8")]

    /// The record one event is produced as: keyed by its batch id, its value the encoded event, with the content-type
    /// header and, when the event has a trace context, the trace headers. Every part is bounded — the value by
    /// `maxBytes`, the key and the trace by the record limits of the job that caused the event.
    public func record(of event: WorkerEvent, sequence: UInt64, topic: String) -> KafkaProducerRecord {
        KafkaProducerRecord(topic: topic, key: Data(event.batchId.utf8), value: encode(event, sequence: sequence),
                            headers: event.trace.map { Self.headers + $0.kafkaHeaders } ?? Self.headers)
    }
}
