import Foundation
import KafkaIO
import Worker

/// The configuration of the commands that only talk to Kafka (`control`, `submit`, `batch`, `dlq`, `watch`): read
/// from `--config` and `ATTACHE_*` as `worker` reads it (same keys, same refusals), but only the Kafka settings
/// must be valid — a client has no use for presign or message settings.
struct ClientConfiguration {
    let configuration: AttacheConfiguration

    /// Loads it, or prints why not (exit status 2).
    static func load(command: String, file: String?) -> ClientConfiguration? {
        do {
            let configuration = try ConfigurationLoader.resolve(file: file).validatedForKafkaClient()
            return ClientConfiguration(configuration: configuration)
        } catch {
            Console.error(command, "\(error)")
            return nil
        }
    }

    /// The Kafka client settings; a record the cluster cannot take fails in 30 s (unless `message.timeout.ms` says
    /// otherwise) rather than librdkafka's five minutes: someone waits at the terminal.
    func kafka(clientID: String) -> KafkaConfiguration {
        var kafka = configuration.kafkaConfiguration(clientID: clientID) { _ in }
        if kafka.properties["message.timeout.ms"] == nil { kafka.properties["message.timeout.ms"] = "30000" }
        return kafka
    }

    /// Produces records in order, each waited for; closes the producer.
    func produce(_ records: [KafkaProducerRecord], command: String) async throws -> [KafkaDeliveryReport] {
        let producer = try KafkaProducer(configuration: kafka(clientID: "attache-\(command)"))
        var reports: [KafkaDeliveryReport] = []
        do {
            for record in records { reports.append(try await producer.send(record)) }
        } catch {
            try? await producer.close(timeout: .seconds(1))
            throw error
        }
        try await producer.close()
        return reports
    }
}
