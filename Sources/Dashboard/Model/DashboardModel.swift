import Foundation
import Records

/// Everything the dashboard shows, folded from the records it reads: batches (bounded to the newest
/// `DashboardLimits.maxBatches`), errors by code, throughput per worker, workers seen and dead letters.
///
/// Pure and single-threaded: callers own the synchronisation (``DashboardHub`` keeps it behind a lock) and pass
/// times in, so tests fold records on a made-up clock. Every change is noted in ``changes`` until taken.
public struct DashboardModel: Sendable {
    public let limits: DashboardLimits
    public private(set) var batches: [String: BatchActivity] = [:]
    public private(set) var errors = ErrorTally()
    public private(set) var throughput = ThroughputWindow()
    public private(set) var workers = WorkerRoster()
    public private(set) var deadLetters = DeadLetterShelf()
    /// Records folded, by topic role, and whether every topic was read up to its end offset at start.
    public private(set) var feed = FeedProgress()
    /// Batches forgotten to stay within the limit.
    public private(set) var evicted = 0
    private var recency = BatchRecency()
    private var pending = ModelChanges()

    public init(limits: DashboardLimits) {
        self.limits = limits
    }

    /// Folds one event of the events topic in; `readAt` stands in for an event without a valid `time`.
    public mutating func take(event: WatchedEvent, readAt: Date) {
        let time = Self.milliseconds(event.time ?? readAt)
        feed.events += 1
        pending.feed = true
        let worker = event.source.map(Self.workerName)
        if let worker {
            if let forgotten = workers.saw(worker, at: time, limit: limits.workers) { throughput.forget(forgotten) }
            pending.workers = true
        }
        if event.type == "attache.job.invalid" {
            takeInvalid(event, at: time)
            return
        }
        guard !event.batchId.isEmpty else { return }
        let fold = updateBatch(event.batchId, at: time) { batch, limits in batch.take(event, at: time, limits: limits) }
        guard let fold, !fold.duplicate else { return }
        if let problem = fold.problem {
            errors.take(problem, limits: limits)
            pending.errors = true
        }
        if let worker, fold.bytesMoved > 0 || fold.filesUploaded > 0 {
            throughput.add(source: worker, at: time, files: fold.filesUploaded, bytes: fold.bytesMoved)
            pending.throughput = true
        }
    }

    /// Folds a record of the jobs topic in: an upload job's receiver and files, or a control in its batch's timeline.
    /// Invalid records are left to the dead-letter panel (the worker refuses them too).
    public mutating func take(command: JobCommand, at date: Date) {
        let time = Self.milliseconds(date)
        feed.jobs += 1
        pending.feed = true
        switch command {
        case .upload(let job):
            updateBatch(job.batchId, at: time) { batch, limits in batch.take(job: job, at: time, limits: limits) }
        case .retry(let batchId, let fileId), .remove(let batchId, let fileId):
            let kind = if case .retry = command { "retry" } else { "remove" }
            updateExisting(batchId) { $0.take(control: kind, fileId: fileId, detail: "\(kind) \(fileId) requested", at: time, limits: $1) }
        case .clear(let batchId):
            updateExisting(batchId) { $0.take(control: "clear", fileId: nil, detail: "clear requested", at: time, limits: $1) }
        case .send(let batchId):
            updateExisting(batchId) { $0.take(control: "send", fileId: nil, detail: "send requested", at: time, limits: $1) }
        case .configure(let batchId, let concurrency):
            updateExisting(batchId) {
                $0.take(control: "configure", fileId: nil, detail: "concurrency \(concurrency)", at: time, limits: $1)
            }
        }
    }

    /// Folds a record of the dead-letter topic in.
    public mutating func take(deadLetter: DeadLetter, readAt: Date) {
        feed.deadLetters += 1
        pending.feed = true
        let time = Self.milliseconds(deadLetter.time ?? readAt)
        deadLetters.update(deadLetter.source ?? "?/\(deadLetter.partition)/\(deadLetter.offset)", at: time, limit: limits.deadLetters) { entry in
            entry.time = time
            entry.key = deadLetter.key == nil ? nil : deadLetter.keyText
            entry.error = deadLetter.error ?? entry.error
            entry.copy = "\(deadLetter.partition)/\(deadLetter.offset)"
            entry.preview = deadLetter.valuePreview(limit: 200)
        }
        pending.deadLetters = true
    }

    /// Notes that every topic was read up to the end offset it had when the dashboard started.
    public mutating func caughtUp() {
        feed.caughtUp = true
        pending.feed = true
    }

    /// What changed since the last call; starts over.
    public mutating func takeChanges() -> ModelChanges {
        defer { pending = ModelChanges() }
        return pending
    }

    /// Whether changes are waiting to be taken.
    public var hasChanges: Bool { !pending.isEmpty }

    private mutating func takeInvalid(_ event: WatchedEvent, at time: Int64) {
        let data = event.data
        let provenance = "\(data["topic"]?.stringValue ?? "?")/\(data["partition"]?.wholeNumber ?? -1)/\(data["offset"]?.wholeNumber ?? -1)"
        deadLetters.update(provenance, at: time, limit: limits.deadLetters) { entry in
            entry.key = entry.key ?? (event.batchId.isEmpty ? nil : event.batchId)
            entry.error = entry.error ?? data["reason"]?.stringValue
            entry.outcome = data["dlq"]?.stringValue
        }
        pending.deadLetters = true
    }

    /// Changes a batch, creating it when new and forgetting the stalest beyond the limit.
    @discardableResult
    private mutating func updateBatch<Result>(_ batchId: String, at time: Int64,
                                              _ change: (inout BatchActivity, DashboardLimits) -> Result) -> Result? {
        let result = change(&batches[batchId, default: BatchActivity(batchId: batchId, at: time)], limits)
        recency.touch(batchId)
        pending.changed(batchId)
        while batches.count > limits.maxBatches, let stalest = recency.popStalest() {
            batches[stalest] = nil
            pending.forgot(stalest)
            evicted += 1
        }
        return batches[batchId] == nil ? nil : result
    }

    /// Changes a batch only if it is known: a control for a batch never seen makes no row of its own.
    private mutating func updateExisting(_ batchId: String, _ change: (inout BatchActivity, DashboardLimits) -> Void) {
        guard batches[batchId] != nil else { return }
        updateBatch(batchId, at: 0, change)
    }

    /// `attache/worker-7` → `worker-7`: the worker's id, as `worker.id` names it.
    static func workerName(_ source: String) -> String {
        source.hasPrefix("attache/") ? String(source.dropFirst("attache/".count)) : source
    }

    static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }
}
