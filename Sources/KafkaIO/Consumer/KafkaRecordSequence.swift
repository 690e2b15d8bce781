/// The records a ``KafkaConsumer`` delivers, in partition order, ending when the consumer closes.
///
/// Read it from one task. Records wait in a bounded buffer between the poll thread and the reader; when the
/// reader falls behind, fetching pauses (the consumer keeps polling, so it stays in its group) and resumes as
/// the reader catches up.
public struct KafkaRecordSequence: AsyncSequence, Sendable {
    /// A consumed record.
    public typealias Element = KafkaRecord
    /// Reading never fails; errors arrive as ``KafkaConsumerEvent/error(_:)``.
    public typealias Failure = Never

    /// Where the poll thread leaves the records.
    let buffer: RecordBuffer

    /// Reads records one at a time or in batches.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let buffer: RecordBuffer

        /// The next record, or `nil` when the consumer closed or the task was cancelled.
        public mutating func next() async -> KafkaRecord? {
            await buffer.next()
        }

        /// Up to `maximum` records that are ready, waiting only if none is; `nil` when the consumer closed or the
        /// task was cancelled. One call per batch keeps intake cheap at high rates.
        public mutating func nextBatch(maximum: Int = 512) async -> [KafkaRecord]? {
            await buffer.nextBatch(maximum: maximum)
        }
    }

    /// Starts reading.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(buffer: buffer)
    }
}
