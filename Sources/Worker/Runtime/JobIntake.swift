import Foundation
import KafkaIO
import Records
import Synchronization
import UploadEngine

/// Reads job records, decodes them, routes them to the batch registry, the dead-letter topic or — when they came
/// under another key than their batch id — back to the jobs topic under it, marks them finished when they settle, and
/// pauses intake while the worker is at its marks.
final class JobIntake: Sendable {
    let configuration: AttacheConfiguration
    let registry: BatchRegistry
    let consumer: KafkaConsumer
    /// The producer of dead letters and re-keyed records: accepts any record the consumer could fetch (see
    /// ``DeadLetterProducer``).
    let deadLetters: any RecordForwarder
    let publisher: any EventPublisher
    let metrics: WorkerMetrics
    let logger: Logger
    let decoder: JobDecoder
    /// Pauses fetching at the backpressure marks; told of changes by the registry and the HTTP client.
    let throttle: IntakeThrottle
    private let stopped = Atomic<Bool>(false)
    /// Records taken in and not yet finished (settled, dead-lettered, dropped or given up with their partition).
    private let open: OpenRecords
    /// The records being applied, for revokes to wait on.
    private let applying: ApplyGate
    /// Commits or gives up the records the registry held, and those sent to the dead-letter topic.
    private let records: IntakeRecords
    /// Holds records back until their partition's batches are restored (nil: `state.durable = false`).
    let restores: RestoreGate?

    init(configuration: AttacheConfiguration, registry: BatchRegistry, consumer: KafkaConsumer, deadLetters: any RecordForwarder,
         publisher: any EventPublisher, metrics: WorkerMetrics, logger: Logger, applying: ApplyGate = ApplyGate(),
         open: OpenRecords = OpenRecords(), restores: RestoreGate? = nil, queuedFiles: @escaping @Sendable () -> Int) {
        self.applying = applying
        self.restores = restores
        self.open = open
        self.configuration = configuration
        self.registry = registry
        self.consumer = consumer
        self.deadLetters = deadLetters
        self.publisher = publisher
        self.metrics = metrics
        self.logger = logger
        self.decoder = JobDecoder(limits: configuration.limits)
        self.records = IntakeRecords(consumer: consumer, open: open)
        registry.returnRecords(to: records)
        self.throttle = IntakeThrottle(marks: .init(batches: configuration.worker.maxInFlightBatches, queuedFiles: configuration.worker.maxQueuedFiles),
                                       busyBatches: { registry.busyBatchCount }, queuedFiles: queuedFiles,
                                       pause: { consumer.pause() }, resume: { consumer.resume() },
                                       held: { registry.isDurabilityBlocked }, logger: logger)
    }

    /// Takes records until the consumer closes; after `stop()` records are left alone (uncommitted, replayed later).
    ///
    /// Each fetched batch is decoded in order, then applied in lanes that run side by side, one per core: every
    /// record of a batch id goes to the same lane, in fetch order, so a batch sees its records in the order they
    /// were written, while different batches do not wait for each other.
    ///
    /// Records are taken only below the backpressure marks, and no more at once than the room left under the batch
    /// mark: what waits beyond the marks waits as fetched records (bounded by the consumer's buffer, whose limit
    /// pauses the fetch), not as batches holding their state, tasks and transfers.
    func consume() async {
        var records = consumer.records.makeAsyncIterator()
        while true {
            await throttle.waitForRoom()
            guard let batch = await records.nextBatch(maximum: min(512, throttle.room)) else { return }
            guard !stopped.load(ordering: .relaxed) else { continue }
            let decoded = await decodeAll(batch)
            // A partition's records apply only once its batches are restored (§4.1); a failed restore is fatal,
            // and its records stay uncommitted.
            if let restores, await !restores.ready(for: batch) {
                batch.forEach { open.closed($0.partition) }
                continue
            }
            guard decoded.count >= 2 * Self.laneCount else {
                decoded.forEach(apply)
                continue
            }
            var lanes = [[DecodedRecord]](repeating: [], count: Self.laneCount)
            for item in decoded { lanes[Self.lane(of: item.command.map(\.command), among: Self.laneCount)].append(item) }
            await withTaskGroup(of: Void.self) { group in
                for lane in lanes where !lane.isEmpty {
                    group.addTask { [self] in lane.forEach(apply) }
                }
            }
        }
    }

    private static let laneCount = max(1, ProcessInfo.processInfo.activeProcessorCount)

    /// Decodes a poll's records, in their order: a large poll in contiguous chunks side by side, since decoding is a
    /// good part of a record's cost and, done in one task, every lane waited for all of it.
    private func decodeAll(_ batch: [KafkaRecord]) async -> [DecodedRecord] {
        let lanes = Self.laneCount
        guard lanes > 1, batch.count >= 2 * lanes else { return batch.map(decode) }
        let size = (batch.count + lanes - 1) / lanes
        var parts = await withTaskGroup(of: (start: Int, decoded: [DecodedRecord]).self) { group in
            for start in stride(from: 0, to: batch.count, by: size) {
                let chunk = batch[start..<min(start + size, batch.count)]
                group.addTask { [self] in (start, chunk.map(decode)) }
            }
            var parts: [(start: Int, decoded: [DecodedRecord])] = []
            for await part in group { parts.append(part) }
            return parts
        }
        parts.sort { $0.start < $1.start }
        var decoded: [DecodedRecord] = []
        decoded.reserveCapacity(batch.count)
        for part in parts { decoded += part.decoded }
        return decoded
    }

    func stop() {
        stopped.store(true, ordering: .relaxed)
        throttle.stop()
    }

    /// Waits until every record taken in has finished, or the grace runs out; says which.
    func drain(within grace: Duration) async -> Bool {
        await open.waitUntilEmpty(nil, timeout: grace)
    }

    /// A record and what it decodes to.
    private struct DecodedRecord: Sendable {
        let record: KafkaRecord
        let provenance: JobDecoder.Provenance
        let command: Result<JobDecoder.Decoded, InvalidJob>
    }

    /// The lane that applies a record: by batch id, so one batch's records stay in order whatever their key or
    /// partition. Invalid records have no batch; they only go to the dead-letter topic, from the first lane.
    static func lane(of command: Result<JobCommand, InvalidJob>, among count: Int) -> Int {
        guard case .success(let command) = command else { return 0 }
        return Int(UInt(bitPattern: command.batchId.hashValue) % UInt(max(count, 1)))
    }

    private func decode(_ record: KafkaRecord) -> DecodedRecord {
        open.opened(record.partition)
        let provenance = JobDecoder.Provenance(topic: record.topic, partition: record.partition, offset: record.offset, key: record.keyString)
        return DecodedRecord(record: record, provenance: provenance,
                             command: decoder.decode(record.value ?? Data(), headers: record.headers, from: provenance))
    }

    private func apply(_ decoded: DecodedRecord) {
        let record = decoded.record
        let ticket = applying.enter()
        defer { applying.leave(ticket) }
        guard consumer.owns(record) else {
            // Fetched before its partition was revoked: not ours to apply any more, nor to commit.
            open.closed(record.partition)
            return
        }
        switch decoded.command {
        case .success(let command) where command.needsRekey:
            // Nothing about the batch is applied from a partition that is not its own: the copy is, on its own.
            metrics.countJob(kind: command.command.kindName, outcome: "rekeyed")
            rekey(record, to: command.command.batchId, provenance: decoded.provenance)
        case .success(let command):
            metrics.countJob(kind: command.command.kindName, outcome: "accepted")
            registry.handle(command.command, record: record.position)
        case .failure(let invalid):
            metrics.countJob(kind: "invalid", outcome: "dead-lettered")
            deadLetter(record, provenance: decoded.provenance, reason: invalid.reason)
        }
    }


    /// The record goes to the dead-letter topic as it was, an `attache.job.invalid` event follows, and only then is
    /// its offset let go. A dead-letter topic that keeps refusing the record (no permission, missing, a record over
    /// its size limit) gets `retry.maxAttempts` tries; then the event says so, the failure is logged and counted,
    /// and the record is committed all the same: a poison record never wedges its partition.
    private func deadLetter(_ record: KafkaRecord, provenance: JobDecoder.Provenance, reason: String) {
        logger.warn("invalid job sent to the dead-letter topic", ["topic": record.topic, "partition": String(record.partition),
                                                                  "offset": String(record.offset), "reason": reason])
        let letter = DeadLetterRecord.make(from: record, reason: reason, topic: configuration.kafka.dlqTopic)
        Task { [self] in
            let outcome: String
            switch await forward(letter, what: "dead-letter publish") {
            case .delivered:
                metrics.registry.increment(WorkerMetrics.deadLetters)
                outcome = "ok"
            case .closed:
                // The worker is stopping; the record stays uncommitted and is replayed.
                open.closed(record.partition)
                return
            case .refused(let error, let attempts):
                outcome = "failed: \(error)"
                metrics.registry.increment(WorkerMetrics.deadLetterFailures)
                logger.error("the dead-letter topic refused an invalid record; committing it without its copy",
                             ["topic": record.topic, "partition": String(record.partition), "offset": String(record.offset),
                              "attempts": String(attempts), "error": error])
            }
            publisher.publish(.invalidRecord(provenance, headers: record.headers, reason: reason, dlq: outcome), sequence: 0)
            let position = record.position
            publisher.whenDelivered { [records] in records.commit([position]) }
        }
    }

    /// A record that names a batch id its key is not goes back to the jobs topic keyed by that batch id — value and
    /// headers unchanged, plus ``RekeyedRecord/provenanceHeader`` — and is committed once the copy is acknowledged;
    /// the batch applies the copy when it arrives on the batch's own partition. A copy the jobs topic keeps refusing
    /// for `retry.maxAttempts` tries is dead-lettered instead (with the refusal as its reason), so the record never
    /// wedges its partition and is not lost either: `attache dlq replay` can put it back.
    private func rekey(_ record: KafkaRecord, to batchId: String, provenance: JobDecoder.Provenance) {
        logger.debug("record keyed otherwise than its batchId: producing it again under its batchId",
                     ["topic": record.topic, "partition": String(record.partition), "offset": String(record.offset), "batchId": batchId])
        let copy = RekeyedRecord.make(from: record, batchId: batchId)
        Task { [self] in
            switch await forward(copy, what: "re-keying") {
            case .delivered:
                records.commit([record.position])
            case .closed:
                open.closed(record.partition)
            case .refused(let error, let attempts):
                logger.error("the jobs topic refused a record re-keyed to its batchId; sending it to the dead-letter topic",
                             ["topic": record.topic, "partition": String(record.partition), "offset": String(record.offset),
                              "attempts": String(attempts), "error": error])
                deadLetter(record, provenance: provenance, reason: "could not be re-keyed to its batchId: \(error)")
            }
        }
    }

    /// How producing a copy of a record ended.
    private enum ForwardOutcome {
        case delivered
        /// The producer closed: the worker is stopping.
        case closed
        /// Refused on every one of `attempts` tries; the last refusal.
        case refused(String, attempts: Int)
    }

    /// Produces `copy` through the forwarding producer, up to `retry.maxAttempts` times with the retry policy's
    /// backoff; `what` names the attempt in the log.
    private func forward(_ copy: KafkaProducerRecord, what: String) async -> ForwardOutcome {
        let attempts = Mutex(0)
        do {
            _ = try await configuration.retry.run(judge: { error in
                .init(retryable: (error as? KafkaError)?.code != .closed && !(error is CancellationError))
            }, onRetry: { error, attempt in
                logger.warn("\(what) failed; retrying", ["attempt": String(attempt), "error": "\(error)"])
            }) { attempt in
                attempts.withLock { $0 = attempt }
                return try await deadLetters.send(copy)
            }
            return .delivered
        } catch let error as KafkaError where error.code == .closed {
            return .closed
        } catch {
            return .refused("\(error)", attempts: attempts.withLock { $0 })
        }
    }
}

extension JobCommand {
    /// The record's `kind`, for metrics and logs.
    var kindName: String {
        switch self {
        case .upload: "upload"
        case .retry: "retry"
        case .remove: "remove"
        case .clear: "clear"
        case .send: "send"
        case .configure: "configure"
        }
    }
}

/// The intake's end of the records the registry holds: committing a record marks it finished for the consumer's
/// watermark; either way it is no longer open.
struct IntakeRecords: HeldRecords {
    let consumer: KafkaConsumer
    let open: OpenRecords

    func commit(_ records: [RecordPosition]) {
        consumer.markFinished(records)
        open.closed(records.lazy.map(\.partition))
    }

    func giveUp(_ records: [RecordPosition]) {
        open.closed(records.lazy.map(\.partition))
    }
}
