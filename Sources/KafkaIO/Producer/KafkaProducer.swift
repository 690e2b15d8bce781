import CRdKafka
import Foundation

/// An idempotent producer (`enable.idempotence=true`, `acks=all`) whose sends complete on delivery reports.
///
/// Sending never blocks a thread: the record is handed to librdkafka's queue from the calling task (a
/// non-blocking call) and the task suspends until the delivery report arrives; a dedicated thread polls for
/// reports. When librdkafka's queue is full, senders wait for room instead of failing.
public final class KafkaProducer: Sendable {
    /// Client-level errors (brokers down, fatal idempotence errors). Ends when the producer closes.
    public let errors: AsyncStream<KafkaError>
    private let client: RDKafkaClient
    private let shared: ProducerShared

    /// Creates the producer and its poll thread; brokers are contacted on the first send.
    ///
    /// - Throws: ``KafkaError`` for a refused property.
    public init(configuration: KafkaConfiguration) throws(KafkaError) {
        let conf = try RDConfiguration(configuration, role: .producer)
        conf.installProducerCallbacks()
        let (errors, continuation) = AsyncStream.makeStream(of: KafkaError.self, bufferingPolicy: .bufferingNewest(256))
        let waker = PollWaker()
        let shared = ProducerShared(errors: continuation, waker: waker)
        let context = RDCallbackContext(logHandler: configuration.logHandler, owner: shared)
        let client = try RDKafkaClient(consumer: false, configuration: conf, context: context)
        waker.install(RDQueue(mainOf: client))
        let loop = ProducerPollLoop(client: client, shared: shared)
        DedicatedThread.start(name: "kafka-producer") { loop.run() }
        self.client = client
        self.shared = shared
        self.errors = errors
    }

    deinit {
        _ = shared.send(.close(timeoutMilliseconds: 5_000, CompletionPromise()))
    }

    /// Produces one record and returns where it was stored.
    public func send(_ record: KafkaProducerRecord) async throws -> KafkaDeliveryReport {
        try await enqueue(record).report()
    }

    /// Produces one record and returns where it was stored.
    public func send(topic: String, key: Data?, value: Data?,
                     headers: [KafkaHeader] = []) async throws -> KafkaDeliveryReport {
        try await send(KafkaProducerRecord(topic: topic, key: key, value: value, headers: headers))
    }

    /// Produces many records with all of them in flight at once; results are in input order.
    public func send(_ records: [KafkaProducerRecord]) async -> [Result<KafkaDeliveryReport, any Error>] {
        var tickets: [Result<KafkaDeliveryTicket, any Error>] = []
        tickets.reserveCapacity(records.count)
        for record in records {
            do { tickets.append(.success(try await enqueue(record))) } catch { tickets.append(.failure(error)) }
        }
        var results: [Result<KafkaDeliveryReport, any Error>] = []
        results.reserveCapacity(records.count)
        for ticket in tickets {
            switch ticket {
            case .success(let ticket):
                do { results.append(.success(try await ticket.report())) } catch { results.append(.failure(error)) }
            case .failure(let error):
                results.append(.failure(error))
            }
        }
        return results
    }

    /// Hands a record to librdkafka and returns at once with a ticket for its delivery report; waits only when
    /// librdkafka's queue is full.
    ///
    /// - Throws: ``KafkaError`` when librdkafka refuses the record (e.g. `MSG_SIZE_TOO_LARGE`) or the producer
    ///   is closed; `CancellationError` if cancelled while waiting for queue room.
    public func enqueue(_ record: KafkaProducerRecord) async throws -> KafkaDeliveryTicket {
        let promise = CompletionPromise<KafkaDeliveryReport>()
        let handler = DeliveryHandler(topic: record.topic) { promise.fulfill($0) }
        while true {
            let error = produce(record, handler)
            if error == RD_KAFKA_RESP_ERR_NO_ERROR { return KafkaDeliveryTicket(promise: promise) }
            guard error == RD_KAFKA_RESP_ERR__QUEUE_FULL else {
                throw error == RD_KAFKA_RESP_ERR__DESTROY ? KafkaError(.closed, "the producer is closed")
                    : KafkaError(error)
            }
            try Task.checkCancellation()
            await shared.waitForSpace()
        }
    }

    /// Hands a record to librdkafka without waiting and calls `onDelivery` from the producer's poll thread when its
    /// delivery report arrives; `onDelivery` must be quick. For callers that cannot suspend (transfer threads).
    ///
    /// - Throws: ``KafkaError`` with code ``KafkaError/Code/queueFull`` when librdkafka's queue has no room (nothing
    ///   was sent; try again after deliveries), or another refusal.
    public func produce(_ record: KafkaProducerRecord,
                        onDelivery: @escaping @Sendable (Result<KafkaDeliveryReport, KafkaError>) -> Void) throws(KafkaError) {
        let error = produce(record, DeliveryHandler(topic: record.topic, deliver: onDelivery))
        guard error == RD_KAFKA_RESP_ERR_NO_ERROR else {
            if error == RD_KAFKA_RESP_ERR__QUEUE_FULL { throw KafkaError(.queueFull, "the producer's queue is full") }
            throw error == RD_KAFKA_RESP_ERR__DESTROY ? KafkaError(.closed, "the producer is closed") : KafkaError(error)
        }
    }

    /// Returns once the poll thread has served delivery reports, which frees queue room, or the producer closed:
    /// for callers of ``produce(_:onDelivery:)`` that were refused with ``KafkaError/Code/queueFull``.
    public func waitForQueueSpace() async {
        await shared.waitForSpace()
    }

    /// Waits until every record sent so far is delivered or failed.
    ///
    /// - Throws: ``KafkaError`` with code `_TIMED_OUT` if records remain after `timeout`.
    public func flush(timeout: Duration) async throws {
        let promise = CompletionPromise<Void>()
        guard shared.send(.flush(timeoutMilliseconds: timeout.clampedMilliseconds, promise)) else {
            throw KafkaError(.closed, "the producer is closed")
        }
        try await promise.value()
    }

    /// Refuses new records, flushes (up to `timeout`), fails what is left and stops the poll thread.
    ///
    /// - Throws: ``KafkaError`` if records were still undelivered after `timeout`; they were failed.
    public func close(timeout: Duration = .seconds(10)) async throws {
        let promise = CompletionPromise<Void>()
        guard shared.send(.close(timeoutMilliseconds: timeout.clampedMilliseconds, promise)) else { return }
        try await promise.value()
    }

    /// One produce call; the handler travels as the message opaque, retained until its delivery report.
    private func produce(_ record: KafkaProducerRecord, _ handler: DeliveryHandler) -> rd_kafka_resp_err_t {
        // Most records (events) carry no headers: no list is made for them.
        let headers = record.headers.isEmpty ? nil : RDHeaders(record.headers)
        let opaque = Unmanaged.passRetained(handler).toOpaque()
        var error = RD_KAFKA_RESP_ERR__DESTROY
        // Inside the produce gate, not the state lock: senders on several threads hand records over side by side,
        // and close() still cannot slip between the open check and the hand-over (it waits for those inside).
        if shared.enterProduce() {
            defer { shared.leaveProduce() }
            func hand(_ list: OpaquePointer?) -> Bool {
                error = client.withClientPointer { handle in
                    // `withCString` lends a native string's own bytes; passing the String itself would copy them.
                    record.topic.withCString { topic in
                        record.key.withOptionalBytes { key in
                            record.value.withOptionalBytes { value in
                                attache_rd_kafka_produce(handle, topic, record.partition ?? RD_KAFKA_PARTITION_UA,
                                                         value.baseAddress, value.count, key.baseAddress, key.count,
                                                         list, opaque)
                            }
                        }
                    }
                }
                return error == RD_KAFKA_RESP_ERR_NO_ERROR
            }
            if let headers { headers.lend(hand) } else { _ = hand(nil) }
        }
        if error != RD_KAFKA_RESP_ERR_NO_ERROR {
            Unmanaged<DeliveryHandler>.fromOpaque(opaque).release()
        }
        return error
    }
}

extension Optional where Wrapped == Data {
    /// Lends the bytes; `nil` lends a null pointer (a null key or value in Kafka), empty data a non-null one.
    fileprivate func withOptionalBytes<T>(_ body: (UnsafeRawBufferPointer) -> T) -> T {
        switch self {
        case .some(let data) where data.isEmpty:
            withUnsafeBytes(of: UInt8(0)) { body(UnsafeRawBufferPointer(start: $0.baseAddress, count: 0)) }
        case .some(let data):
            data.withUnsafeBytes(body)
        case .none:
            body(UnsafeRawBufferPointer(start: nil, count: 0))
        }
    }
}
