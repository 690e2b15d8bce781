import BatchStore
import Foundation
import KafkaIO
import Synchronization
import TestSupport
import UploadEngine
@testable import Worker

/// One seeded schedule against the changelog writer (``ChangelogBatchState``): the registry's side played by a
/// model of each batch, the changelog by a scripted producer whose log takes records in the order they were handed
/// over, and the store by SQLite that can be made to refuse. Every step is one thing a worker meets — a change, a
/// clear, an expiry, a record waiting for its snapshot, a delivery (placed, unplaced), a full producer queue, a
/// store that refuses, events held back, a revoke, a lost partition, a new assignment — and after every step the
/// writer is let run until it waits for the test, and the rules of §4.1 are checked.
final class LifecycleModel {
    /// A rule broken, with the steps that led there.
    struct Violation: Error, CustomStringConvertible {
        let rule: String
        let steps: [String]
        var description: String { "\(rule)\nafter:\n  " + steps.suffix(25).joined(separator: "\n  ") }
    }

    private struct ModelBatch {
        let partition: Int32
        /// The newest state the writer was given; nil once expired (or never made).
        var value: UploadBatch?
        /// Held by a runner: the registry does not load it.
        var heldByRunner = false
        /// Counts the batch's lives: one made after an expiry starts its versions afresh, so the model names each
        /// life in its receiver's id, where the changelog's snapshots show it.
        var life = 0
    }

    /// One record of the changelog, at its place.
    private struct Logged {
        let key: String
        /// The snapshot's life and state version, and whether it is a cleared one; nil for a tombstone.
        let life: Int?
        let version: Int?
        let cleared: Bool
        let value: Data?
        /// The writer's epoch it carries.
        let generation: Int64?
    }

    /// A record waiting for its batch's snapshot, as the registry's commits do.
    private final class Waiter: Sendable {
        let batchId: String
        let partition: Int32
        let version: Int
        /// The changelog's length for the partition when it started waiting: a tombstone placed after that counts.
        let logMark: Int
        /// The partition's changelog length when it was answered; -1 while waiting.
        let answeredAt = Atomic<Int>(-1)
        /// Its partition left while it waited: it stays uncommitted, for the next owner to replay.
        let abandoned = Atomic<Bool>(false)
        init(batchId: String, partition: Int32, version: Int, logMark: Int) {
            (self.batchId, self.partition, self.version, self.logMark) = (batchId, partition, version, logMark)
        }
    }

    private var random: SplitMix64
    private let directory: URL
    private let store: BatchStateStore
    private let producer = EventPublisherDeliveryTests.ScriptedProducer()
    private let refusing = Locked(false)
    private let events = EventBarriers()
    private let losses = Locked<[String]>([])
    private let writer: ChangelogBatchState

    private var batches: [String: ModelBatch] = [:]
    private var owned: Set<Int32> = [0, 1]
    /// Partitions being revoked: their flush runs; the registry applies nothing more to them.
    private var revoking: Set<Int32> = []
    /// Revokes done: the number of records handed over when the partition was released.
    private let revoked = Locked<[Int32: Int]>([:])
    /// Per partition the worker left, the number of records handed over when it let go: any record after that is
    /// one produced for a partition it no longer owns.
    private var leftAt: [Int32: Int] = [:]
    /// The changelog's length per partition, readable from the writer's callbacks.
    private let logLength = Locked<[Int32: Int]>([0: 0, 1: 0])
    private var nextEpoch: Int64 = 100
    /// The changelog, per partition, in offset order.
    private var log: [Int32: [Logged]] = [0: [], 1: []]
    /// Handed records' fates: the offset given, or nil while unreported.
    private var reported: [Int: Int64] = [:]
    private var checkedHanded = 0
    private var waiters: [Waiter] = []
    private var steps: [String] = []
    private var lost = false
    private var eventsLost = false
    private var fileCounter = 0

    init(seed: UInt64) throws {
        random = SplitMix64(seed: seed)
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("lifecycle-\(seed)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let store = try BatchStateStore.open(path: directory.appendingPathComponent("state.db").path).0
        self.store = store
        let refusing = self.refusing, events = self.events, losses = self.losses
        writer = ChangelogBatchState(topic: "attache.batches", store: store, producer: producer, configuration: EngineConfiguration(),
                                     flushInterval: .zero, maxBytes: 900 * 1024, cachedBatches: 2, cachedBytes: 64 * 1024,
                                     storeWrite: { changes, partition, checkpoint in
                                         if refusing.value { throw StoreRefusal() }
                                         try store.apply(changes, partition: partition, checkpoint: checkpoint)
                                     },
                                     storeRetryStart: .milliseconds(1), storeRetryCap: .milliseconds(4), inProgressDelay: .milliseconds(3),
                                     eventsDelivered: { events.barrier($0) }, logger: .silent,
                                     onLoss: { reason in losses.update { $0.append(reason) } })
        for batchId in ["a", "b", "c", "d"] {
            batches[batchId] = ModelBatch(partition: batchId == "a" || batchId == "c" ? 0 : 1)
        }
        for partition in owned { claim(partition) }
    }

    deinit {
        // The scripted producer keeps every record handed to it with its delivery callback, which holds the writer,
        // which holds the producer: without this, every schedule's writer, store and records stayed in memory, and
        // a long `ops/fuzz lifecycle` run slowed down as it grew (1 GB after 4,000 schedules).
        producer.state.withLock { $0.handed.removeAll() }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs `count` random steps, then lets everything through and checks that every record of an owned partition
    /// was answered.
    func run(steps count: Int) async throws {
        for _ in 0..<count {
            try await step()
            try await settle()
            try check()
            if lost { return }
        }
        try await drain()
    }

    // MARK: - Steps

    private func step() async throws {
        let batchId = ["a", "b", "c", "d"].randomElement(using: &random)!
        let batch = batches[batchId]!
        let applies = owned.contains(batch.partition) && !revoking.contains(batch.partition)
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<14 where applies:
            // A record applied as a value: the batch settles with no runner.
            var value = nextValue(batchId)
            if value.isCleared { _ = value.takeJob([file()], requestId: "r\(fileCounter)", options: nil, concurrency: nil, now: Date()) }
            note("settled \(batchId) v\(value.stateVersion)")
            batches[batchId]!.value = value
            batches[batchId]!.heldByRunner = false
            writer.settled(batchId: batchId, partition: batch.partition, batch: value)
        case 14..<24 where applies:
            let value = nextValue(batchId)
            note("changed by runner \(batchId) v\(value.stateVersion)")
            batches[batchId]!.value = value
            batches[batchId]!.heldByRunner = true
            writer.changed(batchId: batchId, partition: batch.partition, runner: BatchRunner(
                batch: value, presigner: ScriptedPresigner(), uploader: ScriptedUploader(), stager: ScriptedStager(), clock: ManualClock()))
        case 24..<30 where applies && batch.value != nil && batch.value?.isCleared == false:
            var value = batch.value!
            _ = value.clear(now: Date())
            note("cleared \(batchId) v\(value.stateVersion)")
            batches[batchId]!.value = value
            batches[batchId]!.heldByRunner = false
            writer.settled(batchId: batchId, partition: batch.partition, batch: value)
        case 30..<34 where applies && batch.value != nil && !batch.heldByRunner:
            note("expired \(batchId)")
            batches[batchId]!.value = nil
            batches[batchId]!.life += 1
            writer.forget(batchId: batchId, partition: batch.partition)
        case 34..<40 where applies && batch.heldByRunner:
            // The registry lets an idle runner go once its snapshot is recorded; from then on it loads the batch.
            let version = batch.value!.stateVersion
            note("runner of \(batchId) leaves at v\(version)")
            let left = Atomic<Bool>(false)
            writer.whenRecorded(batchId: batchId, version: version) { left.store(true, ordering: .relaxed) }
            try await settle()
            if left.load(ordering: .relaxed) { batches[batchId]!.heldByRunner = false }
        case 40..<48 where applies && batch.value != nil:
            let version = batch.value!.stateVersion
            note("record waits for \(batchId) v\(version)")
            let waiter = Waiter(batchId: batchId, partition: batch.partition, version: version, logMark: log[batch.partition]!.count)
            waiters.append(waiter)
            let logLength = self.logLength
            writer.whenRecorded(batchId: batchId, version: version) {
                waiter.answeredAt.store(logLength.value[waiter.partition] ?? 0, ordering: .relaxed)
            }
        case 48..<72:
            deliverNext(placed: Int.random(in: 0..<10, using: &random) > 0)
        case 72..<74:
            deliverNext(placed: true, failing: true)
        case 74..<80:
            let full = !producer.state.withLock { $0.refuseForRoom }
            note(full ? "producer queue full" : "producer queue has room")
            if full { producer.state.withLock { $0.refuseForRoom = true } } else { producer.freeRoom() }
        case 80..<86:
            let refuse = !refusing.value
            note(refuse ? "store refuses writes" : "store takes writes")
            refusing.update { $0 = refuse }
        case 86..<88 where events.isHolding && events.waitingCount > 0:
            // Snapshots taken after lost events must never go out: the loss stops the worker.
            note("events lost")
            events.release(.lost)
            lost = true
            eventsLost = true
        case 86..<92:
            if events.isHolding {
                note("events delivered")
                events.release()
            } else {
                note("events held")
                events.hold()
            }
        case 92..<95 where applies:
            revoke(batch.partition)
        case 95..<97 where applies:
            note("partition \(batch.partition) lost")
            writer.released(partition: batch.partition)
            leave(batch.partition, handed: producer.state.withLock { $0.handed.count })
        case 97..<100 where !owned.contains(batch.partition) && !revoking.contains(batch.partition):
            try assign(batch.partition)
        default:
            deliverNext(placed: true)
        }
        finishRevokes()
    }

    /// The model's batch, one change on: a new file (a new batch when there is none).
    private func nextValue(_ batchId: String) -> UploadBatch {
        var value = batches[batchId]!.value ?? UploadBatch(context: BatchContext(batchId: batchId, receiver: Receiver(id: "life\(batches[batchId]!.life)", type: .user)),
                                                          configuration: EngineConfiguration(), options: MessageOptions(send: .none))
        if value.isCleared {
            _ = value.takeJob([file()], requestId: "r\(fileCounter)", options: nil, concurrency: nil, now: Date())
        } else {
            _ = value.add([file()], requestId: "r\(fileCounter)", now: Date())
        }
        return value
    }

    private func file() -> FileItem {
        fileCounter += 1
        return FileItem(fileId: "f\(fileCounter % 7)", name: "f.png", mimeType: "image/png", source: .data(Data([1, 2, 3])))
    }

    /// Reports the oldest unreported record of a random partition, as librdkafka reports a partition's records in
    /// the order they were produced: placed at the partition's next offset, acknowledged without a place, or failed.
    private func deliverNext(placed: Bool, failing: Bool = false) {
        let handed = producer.state.withLock { $0.handed.map(\.record) }
        let partition = Int32.random(in: 0...1, using: &random)
        guard let index = handed.indices.first(where: { reported[$0] == nil && handed[$0].partition == partition }) else { return }
        let record = handed[index]
        let key = String(decoding: record.key ?? Data(), as: UTF8.self)
        let snapshot = record.value.flatMap { try? BatchSnapshot.decode($0, configuration: EngineConfiguration()).batch }
        let shown = "\(index) of \(key) \(snapshot.map { "v\($0.stateVersion)" } ?? "tombstone")"
        if failing {
            note("snapshot \(shown) fails")
            lost = true
            reported[index] = -2
            producer.report(index, .failure(KafkaError(.timedOut, "message timed out")))
            return
        }
        guard placed else {
            note("snapshot \(shown) acknowledged without a place")
            reported[index] = -1
            producer.report(index, .success(KafkaDeliveryReport(topic: "attache.batches", partition: partition, offset: -1)))
            return
        }
        let offset = Int64(log[partition]!.count)
        let generation = record.headers.last { $0.name == SnapshotRecord.generationHeader }?.value
            .flatMap { Int64(String(decoding: $0, as: UTF8.self)) }
        log[partition]!.append(Logged(key: key, life: snapshot.flatMap { Int($0.context.receiver.id.dropFirst(4)) },
                                      version: snapshot?.stateVersion, cleared: snapshot?.isCleared ?? false,
                                      value: record.value, generation: generation))
        reported[index] = offset
        logLength.update { $0[partition] = log[partition]!.count }
        note("snapshot \(shown) placed at \(partition)/\(offset)")
        producer.report(index, .success(KafkaDeliveryReport(topic: "attache.batches", partition: partition, offset: offset)))
    }

    /// A revoke: the partition's snapshots are flushed (while deliveries go on in later steps), then it is released.
    private func revoke(_ partition: Int32) {
        note("partition \(partition) revoked")
        let writer = self.writer, revoked = self.revoked, producer = self.producer
        revoking.insert(partition)
        Task {
            await writer.flush(partitions: [partition])
            writer.released(partition: partition)
            let handed = producer.state.withLock { $0.handed.count }
            revoked.update { $0[partition] = handed }
        }
    }

    private func finishRevokes() {
        let done = revoked.value.filter { revoking.contains($0.key) }
        for (partition, handed) in done.sorted(by: { $0.key < $1.key }) {
            revoking.remove(partition)
            note("partition \(partition) released")
            leave(partition, handed: handed)
        }
        revoked.update { $0 = $0.filter { done[$0.key] == nil } }
    }

    private func leave(_ partition: Int32, handed: Int) {
        owned.remove(partition)
        leftAt[partition] = handed
        for waiter in waiters where waiter.partition == partition { waiter.abandoned.store(true, ordering: .relaxed) }
        for (batchId, batch) in batches where batch.partition == partition { batches[batchId]!.heldByRunner = false }
    }

    /// A new assignment: the partition's restore brings the store up to the changelog's end (as ``ChangelogRestore``
    /// does, from its checkpoint), and the model takes what a restore of the whole changelog makes of each batch as
    /// the truth: its newest record, but not one with an older epoch than a record of the batch before it (a
    /// record of an earlier claim that landed after a later claim's record is fenced).
    private func assign(_ partition: Int32) throws {
        try checkHanded()
        note("partition \(partition) assigned")
        let entries = log[partition]!
        var newest: [String: Int64] = [:]
        var standing: [String: Data?] = [:]
        let checkpoint = Int((try? store.checkpoint(partition: partition)) ?? 0)
        for (offset, entry) in entries.enumerated() {
            if let generation = entry.generation, let known = newest[entry.key], generation < known { continue }
            newest[entry.key] = entry.generation
            standing[entry.key] = entry.value
            guard offset >= checkpoint else { continue }
            let change = entry.value.map { BatchChange(batchId: entry.key, snapshot: $0, offset: Int64(offset), pending: false, updatedAt: 0) }
                ?? .tombstone(batchId: entry.key, offset: Int64(offset))
            try? store.apply([change], partition: partition, checkpoint: Int64(offset + 1))
        }
        for (batchId, batch) in batches where batch.partition == partition {
            batches[batchId]!.value = standing[batchId].flatMap { $0 }
                .flatMap { try? BatchSnapshot.decode($0, configuration: EngineConfiguration()).batch }
        }
        owned.insert(partition)
        claim(partition)
    }

    private func claim(_ partition: Int32) {
        nextEpoch += 1
        writer.restored(partition: partition, through: Int64(log[partition]!.count), epoch: nextEpoch)
    }

    // MARK: - Rules

    /// Lets the writer run until it waits for the test: a delivery, room in the queue, the store, or events. A writer
    /// that never comes to rest fails the seed; the deadline is generous, as the whole test suite may be running
    /// beside it on two cores (a quiet writer rests within microseconds).
    private func settle() async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        var quiet = 0
        while quiet < 3 {
            await Task.yield()
            await writer.storeWritesDone()
            let full = producer.state.withLock { $0.refuseForRoom }
            quiet = writer.isIdle(queueFull: full, storeRefuses: refusing.value) ? quiet + 1 : 0
            guard ContinuousClock.now < deadline else { throw Violation(rule: "the writer did not come to rest within 60 s", steps: steps) }
        }
        finishRevokes()
    }

    private func check() throws {
        if !lost, let loss = losses.value.first { throw Violation(rule: "a loss nobody caused: \(loss)", steps: steps) }
        if eventsLost && losses.value.isEmpty { throw Violation(rule: "events before a snapshot were lost and nothing stopped", steps: steps) }
        try checkHanded()
        try checkLogOrder()
        try checkLoads()
        try checkAnswers()
        try checkPendingCount()
    }

    /// The count `/metrics` reads, kept as entries change, is the count the table holds.
    private func checkPendingCount() throws {
        let (kept, counted) = (writer.pendingCount, writer.recountedPendingCount)
        if kept != counted { throw Violation(rule: "pending snapshots counted \(kept), the table holds \(counted)", steps: steps) }
    }

    /// Nothing is produced for a partition the worker does not own, and snapshots of a batch are handed over in
    /// the order of its versions.
    private func checkHanded() throws {
        let handed = producer.state.withLock { $0.handed.map(\.record) }
        defer { checkedHanded = handed.count }
        for (index, record) in handed.enumerated().dropFirst(checkedHanded)
        where !owned.contains(record.partition ?? -1) && index >= leftAt[record.partition ?? -1, default: 0] {
            throw Violation(rule: "a record of partition \(record.partition ?? -1) was produced after it left", steps: steps)
        }
    }

    /// A key's snapshots only grow in the changelog: a later life, or a later version of the same life (a cleared
    /// snapshot included), never an older one after a newer — among the records of one claim. A later claim's
    /// records start afresh from what its restore read, and an earlier claim's landing after them are fenced.
    private func checkLogOrder() throws {
        for (partition, entries) in log {
            var newest: [String: (generation: Int64, life: Int, version: Int)] = [:]
            for (offset, entry) in entries.enumerated() {
                guard let life = entry.life, let version = entry.version, let generation = entry.generation else { continue }
                if let before = newest[entry.key] {
                    if generation < before.generation { continue }
                    if generation == before.generation, (life, version) < (before.life, before.version) {
                        throw Violation(rule: "\(entry.key) life \(life) v\(version) at \(partition)/\(offset) follows life "
                                            + "\(before.life) v\(before.version) in the changelog", steps: steps)
                    }
                }
                newest[entry.key] = (generation, life, version)
            }
        }
    }

    /// A batch no runner holds loads as the newest state it was given: never an older one, never a cleared or
    /// expired one brought back. Not while its partition is being revoked: the registry loads nothing of it then,
    /// and what the store refused is let go so the handover does not wait on the store (the next owner's restore
    /// reads it from the changelog).
    private func checkLoads() throws {
        for (batchId, batch) in batches.sorted(by: { $0.key < $1.key })
        where owned.contains(batch.partition) && !revoking.contains(batch.partition) && !batch.heldByRunner {
            let loaded = writer.load(batchId: batchId, partition: batch.partition)
            guard loaded?.stateVersion != batch.value?.stateVersion || loaded?.isCleared != batch.value?.isCleared else { continue }
            func show(_ batch: UploadBatch?) -> String { batch.map { "v\($0.stateVersion)\($0.isCleared ? " cleared" : "")" } ?? "nothing" }
            throw Violation(rule: "\(batchId) loads as \(show(loaded)), not \(show(batch.value))", steps: steps)
        }
    }

    /// A waiting record is answered only once the changelog holds its batch at its version or later (or a tombstone
    /// placed since it started waiting).
    private func checkAnswers() throws {
        for waiter in waiters {
            let at = waiter.answeredAt.load(ordering: .relaxed)
            guard at >= 0 else { continue }
            let entries = (log[waiter.partition] ?? [])[..<at]
            let recorded = entries.contains { $0.key == waiter.batchId && ($0.version ?? -1) >= waiter.version }
                || entries[min(waiter.logMark, at)...].contains { $0.key == waiter.batchId && $0.version == nil }
            if !recorded {
                throw Violation(rule: "a record of \(waiter.batchId) v\(waiter.version) was answered before its snapshot was in the changelog",
                                steps: steps)
            }
        }
    }

    /// Everything through: room, a store that takes writes, events delivered, every record placed. Then every
    /// record still waiting on an owned partition must have been answered.
    private func drain() async throws {
        note("drain")
        producer.freeRoom()
        refusing.update { $0 = false }
        events.release()
        for _ in 0..<10_000 {
            try await settle()
            let unreported = producer.state.withLock { $0.handed.count } > reported.count
            guard unreported || !revoking.isEmpty else { break }
            deliverNext(placed: true)
            try await settle()
            finishRevokes()
        }
        try check()
        if let waiting = waiters.first(where: { $0.answeredAt.load(ordering: .relaxed) < 0 && !$0.abandoned.load(ordering: .relaxed) }) {
            throw Violation(rule: "a record of \(waiting.batchId) v\(waiting.version) was never answered", steps: steps)
        }
    }

    private func note(_ step: String) { steps.append(step) }
}
