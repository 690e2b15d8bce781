import Synchronization

/// One read at a time per partition of a ``KafkaPartitionReader``: librdkafka starts a partition's fetch once per
/// client handle, so a second read of a partition waits until the first one has stopped its fetch.
final class PartitionClaims: Sendable {
    private let claims = Mutex<[TopicPartition: CompletionPromise<Void>]>([:])

    /// No partition claimed.
    init() {}

    /// Returns once `partition` is this caller's; waits while another read holds it.
    ///
    /// - Throws: `CancellationError` if the task is cancelled while waiting.
    func claim(_ partition: TopicPartition) async throws {
        while true {
            let holder = claims.withLock { claims -> CompletionPromise<Void>? in
                if let holder = claims[partition] { return holder }
                claims[partition] = CompletionPromise()
                return nil
            }
            guard let holder else { return }
            try await holder.value()
        }
    }

    /// Gives `partition` up and lets the next waiting read have it.
    func release(_ partition: TopicPartition) {
        claims.withLock { $0.removeValue(forKey: partition) }?.fulfill(.success(()))
    }
}
