/// A record handed to the producer whose delivery report has not necessarily arrived yet.
///
/// Lets many records be in flight at once: enqueue them all, then await the tickets.
public struct KafkaDeliveryTicket: Sendable {
    /// Fulfilled by the delivery-report callback.
    let promise: CompletionPromise<KafkaDeliveryReport>

    /// Waits for the delivery report; may be awaited any number of times.
    ///
    /// - Throws: the ``KafkaError`` from the delivery report, or `CancellationError` if the awaiting task is
    ///   cancelled first (the record may still be delivered).
    public func report() async throws -> KafkaDeliveryReport {
        try await promise.value()
    }

    /// Whether the delivery report has arrived.
    public var isSettled: Bool { promise.isFulfilled }
}
