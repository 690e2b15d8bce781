import Foundation
import KafkaIO
import Records

/// Produces the dashboard's control records to the jobs topic, keyed by the batch id (so each reaches the worker
/// owning the batch), with one producer for the dashboard's life.
public final class KafkaControlSink: ControlSink {
    private let producer: KafkaProducer
    private let topic: String

    /// The producer's handle is made now; brokers are contacted on the first record.
    public init(kafka: KafkaConfiguration, jobsTopic: String) throws {
        producer = try KafkaProducer(configuration: kafka)
        topic = jobsTopic
    }

    public func produce(_ control: ControlRecord) async throws -> String {
        let report = try await producer.send(KafkaProducerRecord(topic: topic, key: Data(control.key), value: Data(control.value)))
        return "\(report.topic)/\(report.partition)/\(report.offset)"
    }

    /// Delivers what is still queued and closes the producer.
    public func close() async {
        try? await producer.close(timeout: .seconds(5))
    }
}
