/// A request from Swift that the consumer's poll thread carries out, because it needs the client handle.
enum ConsumerCommand: Sendable {
    /// Commit every owned partition's watermark and report when the broker confirmed.
    case commit(CompletionPromise<Void>)
    /// Read the group's committed offsets for some partitions (`rd_kafka_committed`).
    case committed([TopicPartition], timeoutMilliseconds: Int32, CompletionPromise<[TopicPartition: Int64]>)
    /// Commit, leave the group and stop.
    case close(CompletionPromise<Void>)
}
