import CRdKafka

/// Owns one `rd_kafka_mock_cluster_t` and the client handle it lives in, which must outlive it.
///
/// Destroying a mock cluster joins its broker thread, so `deinit` does it on a thread of its own, then lets the
/// client go.
final class RDMockCluster: @unchecked Sendable {
    // @unchecked: `pointer` is immutable; mock-cluster calls are thread-safe (they are commands to the
    // cluster's own thread); it is destroyed once, in deinit, before its client.
    private let pointer: OpaquePointer
    private let client: RDKafkaClient

    /// Starts `brokers` mock brokers on loopback; blocks briefly while their threads start.
    init(brokers: Int) throws(KafkaError) {
        let conf = try RDConfiguration(KafkaConfiguration(bootstrapServers: ""), role: .admin)
        // The carrier handle has no brokers of its own; its configuration warning is noise.
        try conf.set("log_level", "3")
        let client = try RDKafkaClient(consumer: false, configuration: conf,
                                       context: RDCallbackContext(logHandler: nil, owner: nil))
        // The mock brokers' threads start from here: they get the slack a client's own threads get.
        let created = RDKafkaClient.withLibraryTimerSlack {
            client.withClientPointer { rd_kafka_mock_cluster_new($0, Int32(clamping: brokers)) }
        }
        guard let pointer = created else {
            throw KafkaError(.mockCluster, "rd_kafka_mock_cluster_new failed for \(brokers) brokers")
        }
        self.pointer = pointer
        self.client = client
    }

    deinit {
        let doomed = DoomedCluster(pointer: pointer, client: client)
        DedicatedThread.start(name: "rdkafka-mock-destroy") { doomed.destroy() }
    }

    /// Lends the cluster for the duration of `body`.
    func withClusterPointer<T>(_ body: (OpaquePointer) throws -> T) rethrows -> T {
        try body(pointer)
    }
}

/// A mock cluster on its way to `rd_kafka_mock_cluster_destroy`, with the client that must outlive it.
private struct DoomedCluster: @unchecked Sendable {
    // @unchecked: the owning RDMockCluster is gone, so this is the only reference to `pointer`; used once.
    let pointer: OpaquePointer
    let client: RDKafkaClient

    func destroy() {
        rd_kafka_mock_cluster_destroy(pointer)
        withExtendedLifetime(client) {}
    }
}
