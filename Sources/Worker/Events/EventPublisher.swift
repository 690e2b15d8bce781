import Records

/// Where a worker's events go: the events topic in production, a recorder in tests.
///
/// Implementers keep the order of events with the same batch id (they share a record key) and must not block:
/// `publish` is called from transfer threads.
public protocol EventPublisher: Sendable {
    func publish(_ event: WorkerEvent, sequence: UInt64)
    /// Runs `action` once every event published before this call has been delivered (or given up on), so a job's
    /// offset is committed only after the events about it are out.
    func whenDelivered(_ action: @escaping @Sendable () -> Void)
}
