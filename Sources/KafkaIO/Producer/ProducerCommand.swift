/// A request that the producer's poll thread carries out.
enum ProducerCommand: Sendable {
    /// Wait until every queued record is delivered or failed (`rd_kafka_flush`).
    case flush(timeoutMilliseconds: Int32, CompletionPromise<Void>)
    /// Flush, fail what is left, and stop.
    case close(timeoutMilliseconds: Int32, CompletionPromise<Void>)
}
