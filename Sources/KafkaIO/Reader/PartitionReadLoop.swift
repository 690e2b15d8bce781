import CRdKafka
import Synchronization

/// One read of one partition on a thread of its own: asks for the partition's watermarks, starts its fetch into a
/// queue of its own (`rd_kafka_consume_start_queue`), hands records to the reading task through a bounded buffer and
/// stops the fetch at the end offset captured at the start.
///
/// The reading task drains ``buffer`` and then awaits ``outcome``, which the thread fulfils before it finishes the
/// buffer; ``stop()`` ends the read early (the reading task gave up).
final class PartitionReadLoop: Sendable {
    /// What the read is for.
    enum Goal: Sendable {
        /// Every record from an offset up to the end offset captured at the start.
        case toEnd(from: Int64)
        /// The record at one offset, if the partition still holds it.
        case single(Int64)
        /// Every record from an offset (nil: the end offset at the start; below the log start: the log start), and
        /// every record appended later, until the read is stopped.
        case follow(from: Int64?)
    }

    /// Records on their way to the reading task.
    let buffer: RecordBuffer
    /// How the read ended; fulfilled before ``buffer`` is finished.
    let outcome = CompletionPromise<PartitionReadOutcome>()
    private let client: RDKafkaClient
    private let queue: RDQueue
    private let partition: TopicPartition
    private let goal: Goal
    private let options: KafkaPartitionReaderOptions
    private let stopRequested = Atomic<Bool>(false)

    /// A read of `partition` through `client`, not started yet.
    init(client: RDKafkaClient, partition: TopicPartition, goal: Goal, options: KafkaPartitionReaderOptions) {
        self.client = client
        self.queue = RDQueue(newOn: client)
        self.partition = partition
        self.goal = goal
        self.options = options
        self.buffer = RecordBuffer(highMark: options.maxBufferedRecords) {}
    }

    /// Reads, then reports; runs on the read's own thread.
    func run() {
        outcome.fulfill(read())
        buffer.finish()
    }

    /// Ends the read at its next round; the reading task no longer wants records.
    func stop() {
        stopRequested.store(true, ordering: .relaxed)
        buffer.interruptWait()
        queue.wake()
    }

    /// Hands the records to `handle` in batches of at most `maximum` until the read ends, then returns how it ended.
    ///
    /// - Throws: the read's ``KafkaError``, the handler's error, or `CancellationError`; the read is stopped.
    func drain(maximum: Int, into handle: ([KafkaRecord]) async throws -> Void) async throws -> PartitionReadOutcome {
        do {
            while let batch = await buffer.nextBatch(maximum: maximum) {
                try await handle(batch)
            }
        } catch {
            stop()
            throw error
        }
        // The buffer ends without an outcome only when the waiting task was cancelled.
        guard outcome.isFulfilled else {
            stop()
            throw CancellationError()
        }
        return try await outcome.value()
    }

    private func read() -> Result<PartitionReadOutcome, KafkaError> {
        var low: Int64 = -1
        var high: Int64 = -1
        let error = client.withClientPointer {
            rd_kafka_query_watermark_offsets($0, partition.topic, partition.partition, &low, &high,
                                             options.requestTimeout.clampedMilliseconds)
        }
        guard error == RD_KAFKA_RESP_ERR_NO_ERROR else {
            return .failure(KafkaError(error, detail: "watermarks of \(partition): \(String(cString: rd_kafka_err2str(error)))"))
        }
        var progress: PartitionReadProgress
        switch goal {
        case .toEnd(let offset):
            guard let planned = PartitionReadProgress.toEnd(from: offset, low: low, high: high) else {
                return .success(.aheadOfTopic(end: high))
            }
            progress = planned
        case .single(let offset):
            progress = PartitionReadProgress.single(at: offset, low: low, high: high)
        case .follow(let offset):
            progress = PartitionReadProgress(startOffset: offset.map { min(max($0, low), high) } ?? high, endOffset: .max)
        }
        if !progress.isComplete, let failure = fetch(&progress) {
            return .failure(failure)
        }
        if !progress.isComplete {
            return .failure(KafkaError(.closed, "the read of \(partition) was stopped at offset \(progress.nextOffset)"))
        }
        return .success(.completed(PartitionReadSummary(startOffset: progress.startOffset, endOffset: progress.endOffset,
                                                        lowWatermark: low, recordsRead: progress.recordsRead)))
    }

    /// Fetches from `progress.startOffset` until `progress` is complete or the read is stopped.
    private func fetch(_ progress: inout PartitionReadProgress) -> KafkaError? {
        let topic: RDTopic
        do { topic = try RDTopic(partition.topic, on: client) } catch { return error }
        let started = topic.withTopicPointer { handle in
            queue.withQueuePointer { rd_kafka_consume_start_queue(handle, partition.partition, progress.startOffset, $0) }
        }
        guard started == 0 else {
            return KafkaError(rd_kafka_last_error(), detail: "starting to fetch \(partition) at \(progress.startOffset)")
        }
        defer { topic.withTopicPointer { _ = rd_kafka_consume_stop($0, partition.partition) } }
        let capacity = min(options.maxBatchSize, 4096)
        let messages = UnsafeMutablePointer<UnsafeMutablePointer<rd_kafka_message_t>?>.allocate(capacity: capacity)
        defer { messages.deallocate() }
        var lastAdvance = ContinuousClock.now
        while !progress.isComplete, !stopRequested.load(ordering: .relaxed) {
            if buffer.isThrottled {
                // The handler is behind, not the broker: waiting here is no stall.
                buffer.waitForDrain(upTo: .milliseconds(20))
                lastAdvance = .now
                continue
            }
            let count = nextMessages(into: messages, capacity: capacity)
            guard count >= 0 else { return KafkaError(rd_kafka_last_error(), detail: "fetching \(partition)") }
            let before = progress
            var records: [KafkaRecord] = []
            records.reserveCapacity(count)
            var failure: KafkaError?
            for index in 0..<count {
                guard let message = messages[index] else { continue }
                defer { rd_kafka_message_destroy(message) }
                switch message.pointee.err {
                case RD_KAFKA_RESP_ERR_NO_ERROR:
                    if progress.take(message.pointee.offset) {
                        records.append(KafkaRecord(message: message, topic: partition.topic))
                    }
                case RD_KAFKA_RESP_ERR__PARTITION_EOF:
                    progress.reachedEnd(at: message.pointee.offset)
                case let error where failure == nil && !Self.isPassing(error):
                    failure = KafkaError(error, detail: rd_kafka_message_errstr(message).map { String(cString: $0) })
                default:
                    break
                }
            }
            buffer.push(records)
            if let failure { return failure }
            // Errors librdkafka reports while it keeps retrying (leader moving, broker down) are served here too.
            client.withClientPointer { _ = rd_kafka_poll($0, 0) }
            if progress != before {
                lastAdvance = .now
            } else if case .follow = goal {
                // Following waits for records that may never come: no stall.
            } else if lastAdvance.duration(to: .now) > options.stallTimeout {
                return KafkaError(RD_KAFKA_RESP_ERR__TIMED_OUT,
                                  detail: "reading \(partition): nothing new for \(options.stallTimeout) at offset \(progress.nextOffset)")
            }
        }
        return nil
    }

    /// Takes what the queue holds, up to `capacity` messages; waits up to 100 ms for one when it holds none.
    ///
    /// `rd_kafka_consume_batch_queue` waits for a full batch or its timeout, so the wait is for a single message and
    /// the batch call only takes what is ready. Returns the count, or -1 with librdkafka's last error set.
    private func nextMessages(into messages: UnsafeMutablePointer<UnsafeMutablePointer<rd_kafka_message_t>?>,
                              capacity: Int) -> Int {
        queue.withQueuePointer { queue in
            let ready = rd_kafka_consume_batch_queue(queue, 0, messages, capacity)
            guard ready == 0 else { return ready }
            guard let first = rd_kafka_consume_queue(queue, 100) else { return 0 }
            messages[0] = first
            guard capacity > 1 else { return 1 }
            return 1 + max(rd_kafka_consume_batch_queue(queue, 0, messages + 1, capacity - 1), 0)
        }
    }

    /// Errors librdkafka recovers from by itself while it keeps fetching, and its note that it started over at the
    /// log start (`_AUTO_OFFSET_RESET`: the records asked for are gone, which the progress accounts for).
    private static func isPassing(_ error: rd_kafka_resp_err_t) -> Bool {
        error == RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET || KafkaError.isTransient(libraryCode: error.rawValue)
    }
}
