import KafkaIO

/// The worker's Kafka clients from their first event to their close: consumer events (assignments, revokes,
/// errors) and producer errors are handled as they come; at shutdown — after intake drained — the producer
/// flushes its events and snapshots, the consumer commits what settled and leaves the group, and the clients and
/// the batch store close.
struct KafkaClientsService: Service {
    let consumer: KafkaConsumer
    let producer: KafkaProducer
    let deadLetters: KafkaProducer
    let durable: DurableState?
    let onConsumerEvent: @Sendable (KafkaConsumerEvent) -> Void
    let onProducerError: @Sendable (KafkaError) -> Void
    let logger: Logger

    var name: String { "kafka" }

    func run(until shutdown: ShutdownSignal) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await event in consumer.events { onConsumerEvent(event) }
            }
            group.addTask {
                for await error in producer.errors { onProducerError(error) }
            }
            await shutdown.wait()
            do { try await producer.flush(timeout: .seconds(10)) } catch {
                logger.error("events still undelivered at shutdown", ["error": "\(error)"])
            }
            do { try await consumer.commit() } catch { logger.warn("final commit failed", ["error": "\(error)"]) }
            do { try await consumer.close() } catch { logger.warn("leaving the group failed", ["error": "\(error)"]) }
            try? await deadLetters.close()
            try? await producer.close()
            durable?.store.close()
            // The event streams end with their clients; whatever is still buffered in them is of no use now.
            group.cancelAll()
        }
    }
}
