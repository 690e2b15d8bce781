import CRdKafka

/// The producer's poll thread: serves delivery reports, flushes and closes.
final class ProducerPollLoop: @unchecked Sendable {
    // @unchecked: immutable after init; handed to the poll thread and used only there.
    private let client: RDKafkaClient
    private let shared: ProducerShared

    /// A loop serving `client`'s main queue.
    init(client: RDKafkaClient, shared: ProducerShared) {
        self.client = client
        self.shared = shared
    }

    /// Polls until a close command arrives.
    func run() {
        client.withClientPointer { handle in
            while true {
                let commands = shared.state.withLock { state in
                    defer { state.commands = [] }
                    return state.commands
                }
                for command in commands {
                    switch command {
                    case .flush(let timeout, let promise):
                        promise.fulfill(flush(handle, timeout: timeout))
                    case .close(let timeout, let promise):
                        close(handle, timeout: timeout, promise)
                        return
                    }
                }
                rd_kafka_poll(handle, 100)
                shared.releaseSpaceWaiters()
            }
        }
    }

    private func flush(_ handle: OpaquePointer, timeout: Int32) -> Result<Void, KafkaError> {
        let error = rd_kafka_flush(handle, timeout)
        shared.releaseSpaceWaiters()
        if error == RD_KAFKA_RESP_ERR_NO_ERROR { return .success(()) }
        var failure = KafkaError(error)
        failure.message = "\(rd_kafka_outq_len(handle)) records still undelivered: \(failure.message)"
        return .failure(failure)
    }

    private func close(_ handle: OpaquePointer, timeout: Int32, _ promise: CompletionPromise<Void>) {
        // New sends are refused from here on, so the flush below covers everything that was accepted.
        let (commands, waiters) = shared.state.withLock { state in
            state.isClosed = true
            defer {
                state.commands = []
                state.spaceWaiters = []
            }
            return (state.commands, state.spaceWaiters)
        }
        shared.closeProduces()
        let result = flush(handle, timeout: timeout)
        if case .failure = result {
            // Whatever did not make it gets a delivery report with a purge error instead of waiting forever.
            _ = rd_kafka_purge(handle, Int32(RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT))
            rd_kafka_poll(handle, 0)
            _ = rd_kafka_flush(handle, 1000)
        }
        for waiter in waiters { waiter.resume() }
        for command in commands {
            switch command {
            case .flush(_, let other), .close(_, let other): other.fulfill(result)
            }
        }
        shared.errors.finish()
        shared.waker.clear()
        promise.fulfill(result)
    }
}
