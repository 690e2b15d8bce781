import KafkaIO

/// The worker's Kafka clients from their first event to their close: consumer events (assignments, revokes,
/// errors) and producer errors are handled as they come; at shutdown — after intake drained — the producer
/// flushes its events and snapshots, the consumer commits what settled and leaves the group, and the clients and
/// the batch store close. Each of those steps takes what is left of the shutdown's budget, and no more: a broker
/// that stopped answering delays the exit, never prevents it.
struct KafkaClientsService: Service {
    let consumer: KafkaConsumer
    let producer: KafkaProducer
    let deadLetters: KafkaProducer
    let durable: DurableState?
    /// The shutdown's time, counted from when it started.
    let budget: @Sendable () -> ShutdownBudget
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
            let budget = budget()
            do { try await producer.flush(timeout: budget.remaining) } catch {
                logger.error("events still undelivered at shutdown", ["error": "\(error)"])
            }
            do { try await budget.run { try await consumer.commit(retryFor: budget.remaining) } } catch {
                logger.warn("final commit failed", ["error": "\(error)"])
            }
            do { try await budget.run { try await consumer.close() } } catch {
                logger.warn("leaving the group failed", ["error": "\(error)"])
            }
            try? await deadLetters.close(timeout: budget.remaining)
            try? await producer.close(timeout: budget.remaining)
            durable?.store.close()
            // The event streams end with their clients; whatever is still buffered in them is of no use now.
            group.cancelAll()
        }
    }
}
