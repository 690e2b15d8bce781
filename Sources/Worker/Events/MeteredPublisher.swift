import Records

/// Counts engine events into the metrics on their way out.
struct MeteredPublisher: EventPublisher {
    let inner: any EventPublisher
    let metrics: WorkerMetrics

    func publish(_ event: WorkerEvent, sequence: UInt64) {
        switch event {
        case .upload(let upload): metrics.record(upload)
        case .jobInvalid: break
        }
        inner.publish(event, sequence: sequence)
    }

    func whenDelivered(_ action: @escaping @Sendable () -> Void) {
        inner.whenDelivered(action)
    }
}
