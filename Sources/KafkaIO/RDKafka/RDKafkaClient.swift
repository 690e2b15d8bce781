import CRdKafka

/// Owns one `rd_kafka_t` handle; the handle is lent out only through ``withClientPointer(_:)``.
///
/// `rd_kafka_destroy` blocks while librdkafka's threads wind down, so `deinit` runs it on a thread of its own
/// and keeps the callback context alive until it returns.
final class RDKafkaClient: @unchecked Sendable {
    // @unchecked: `handle` is immutable and librdkafka documents `rd_kafka_t` as safe to use from any thread;
    // it is destroyed once, in deinit, when no other reference to this object exists.
    private let handle: OpaquePointer
    private let context: RDCallbackContext
    private let isConsumer: Bool

    /// Creates the handle; on success librdkafka owns `configuration`.
    init(consumer: Bool, configuration: RDConfiguration, context: RDCallbackContext) throws(KafkaError) {
        configuration.withConfigurationPointer { conf in
            rd_kafka_conf_set_opaque(conf, Unmanaged.passUnretained(context).toOpaque())
            if context.logHandler != nil {
                rd_kafka_conf_set_log_cb(conf, logCallback)
            }
        }
        let (created, text) = Self.withLibraryTimerSlack {
            configuration.withConfigurationPointer { conf in
                RDErrorBuffer.with { rd_kafka_new(consumer ? RD_KAFKA_CONSUMER : RD_KAFKA_PRODUCER, conf, $0, $1) }
            }
        }
        guard let created else {
            throw KafkaError(.clientCreation, text)
        }
        configuration.relinquish()
        self.handle = created
        self.context = context
        self.isConsumer = consumer
    }

    /// librdkafka 2.0 turns the time left until a broker thread's next deadline (a producer's `linger.ms`, a
    /// retry's backoff) into whole milliseconds for poll(), rounding down: it wakes up to a millisecond early and then
    /// polls with a zero timeout until the deadline passes (confluentinc/librdkafka #4684, fixed upstream for the main
    /// thread only). Under a steady stream of small jobs the events producer's broker thread spun like this for about
    /// a fifth of its time: some 6.6 zero-timeout polls for each small job, about two thirds of all its poll calls.
    /// Threads inherit their creator's timer slack, and librdkafka starts every thread of a client from the one that
    /// calls `rd_kafka_new` or from its own main thread; with a millisecond of slack the kernel may end such a poll
    /// up to a millisecond late, past the deadline, so it sleeps once instead of spinning. Timeouts fire at most a
    /// millisecond later; a socket or queue that becomes ready still wakes the thread at once.
    static func withLibraryTimerSlack<T>(_ body: () -> T) -> T {
        let own = attache_timer_slack()
        _ = attache_set_timer_slack(1_000_000)
        defer { _ = attache_set_timer_slack(own) }
        return body()
    }

    deinit {
        let doomed = DoomedHandle(handle: handle, context: context, isConsumer: isConsumer)
        DedicatedThread.start(name: "rdkafka-destroy") { doomed.destroy() }
    }

    /// Lends the handle for the duration of `body`.
    func withClientPointer<T>(_ body: (OpaquePointer) throws -> T) rethrows -> T {
        try body(handle)
    }

    /// The client instance name, e.g. `attache#consumer-2`.
    var name: String { String(cString: rd_kafka_name(handle)) }
}

/// A handle on its way to `rd_kafka_destroy`, moved to the destroying thread with its callback context.
private struct DoomedHandle: @unchecked Sendable {
    // @unchecked: the owning RDKafkaClient is gone, so this is the only reference to `handle`; it is used once.
    let handle: OpaquePointer
    let context: RDCallbackContext
    let isConsumer: Bool

    func destroy() {
        // The consumer was closed on its poll thread already; closing again here would run the rebalance
        // callback on this thread.
        rd_kafka_destroy_flags(handle, isConsumer ? RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE : 0)
        withExtendedLifetime(context) {}
    }
}

/// librdkafka's log callback; runs on librdkafka's internal threads.
private func logCallback(client: OpaquePointer?, level: Int32, facility: UnsafePointer<CChar>?,
                         message: UnsafePointer<CChar>?) {
    guard let client, let opaque = rd_kafka_opaque(client) else { return }
    let context = RDCallbackContext.from(opaque)
    context.logHandler?(KafkaLogMessage(level: level, facility: facility.map { String(cString: $0) } ?? "",
                                        message: message.map { String(cString: $0) } ?? "",
                                        client: String(cString: rd_kafka_name(client))))
}
