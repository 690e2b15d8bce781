import Foundation
import WireFormat

extension UploadBatch {
    /// Adds files to the batch (the reference's `uploadAttachments`): validates each in input order, queues the
    /// accepted ones and starts what the concurrency allows.
    ///
    /// A call whose files are all rejected at intake drains at once, so `completed` follows its rejections.
    public mutating func add(_ items: [FileItem], requestId: String, now: Date) -> BatchEffects {
        var effects = BatchEffects()
        let wasPending = status == .inProgress
        isCleared = false
        lastSettledRequestId = requestId
        if let trace = items.first?.trace { noteTrace(trace, of: requestId) }
        var replaced: Set<Int> = []
        for item in items {
            admit(item, requestId: requestId, replacing: &replaced, into: &effects)
        }
        // Rejected files replaced by new ones under their ids leave in one pass, not one shift of the batch each.
        if !replaced.isEmpty {
            entries.removeAll { replaced.contains($0.slot) }
            entryVisits &+= entries.count
        }
        schedule(now: now, into: &effects)
        finishInput(wasPending: wasPending, reportIfIdle: true, changed: true, now: now, into: &effects)
        return effects
    }

    /// An upload job applied: its message options and concurrency, then its files (``add(_:requestId:now:)``) — what
    /// ``BatchRunner/upload(_:requestId:options:concurrency:offset:observer:)`` applies.
    /// The first job after a `clear` starts a fresh batch under the same id: its `context` replaces the cleared
    /// batch's, its options and concurrency apply, and the sequence and generations go on from the cleared ones.
    public mutating func takeJob(_ items: [FileItem], requestId: String, options: MessageOptions?, concurrency: Int?,
                                 context: BatchContext? = nil, now: Date) -> BatchEffects {
        if isCleared {
            isCleared = false
            if let context, context.batchId == batchId { self.context = context }
            sending.options = MessageOptions()
            self.concurrency = max(1, configuration.concurrency)
            traces = [:]
            lastSettledRequestId = ""
        }
        if let options { setMessageOptions(options) }
        var effects = concurrency.map { setConcurrency($0, now: now) } ?? BatchEffects()
        let added = add(items, requestId: requestId, now: now)
        effects.events += added.events
        effects.actions += added.actions
        return effects
    }

    /// An upload job applied to the batch as a value, by a driver that keeps no runner for it: the job's record
    /// noted as applied at `offset`, and its events numbered. Worth it only when nothing follows — no action to
    /// perform and the batch quiescent (every file refused at intake); otherwise a runner must drive the batch.
    public mutating func applyJob(_ items: [FileItem], requestId: String, options: MessageOptions?, concurrency: Int?,
                                  context: BatchContext? = nil, offset: Int64, now: Date) -> BatchEffects {
        var effects = takeJob(items, requestId: requestId, options: options, concurrency: concurrency, context: context, now: now)
        noteApplied(offset: offset, now: now)
        stampSequence(&effects.events)
        return effects
    }

    /// Takes one file in. Lookups go through the directory: a call with n files costs O(n), however many files the
    /// batch already holds or the call repeats.
    private mutating func admit(_ item: FileItem, requestId: String, replacing replaced: inout Set<Int>,
                                into effects: inout BatchEffects) {
        // A rejected file holds no place: a new file under its id replaces it (its entry leaves at the end of the call).
        if !item.fileId.isEmpty {
            replaced.formUnion(directory.removeRejected(item.fileId))
        }
        let live = directory.live[item.fileId].flatMap(index(ofSlot:))
        let reusesFailed = live.map { entries[$0].state == .failed } ?? false

        if let error = intakeError(for: item, liveDuplicate: reusesFailed ? nil : live.map { entries[$0].state }) {
            appendRejected(item, requestId: requestId, error: error, into: &effects)
            return
        }
        if reusesFailed, let index = live {
            reuseFailed(at: index, with: item, requestId: requestId, into: &effects)
            return
        }
        guard remainingCapacity > 0 else {
            let limit = configuration.limits.fileCountMax
            appendRejected(item, requestId: requestId,
                           error: UploadError(.fileCountExceeded, "the batch already holds \(limit) files (limits.fileCountMax)"),
                           into: &effects)
            return
        }
        let slot = takeSlot()
        entries.append(FileEntry(slot: slot, item: item, requestId: requestId, generation: takeGeneration()))
        directory.addLive(item.fileId, slot: slot)
    }

    /// The first intake rule the item breaks, in the contract's order: empty data; a malformed item (bad id, name,
    /// type or source, as decoded) or a duplicate id; size.
    private func intakeError(for item: FileItem, liveDuplicate: FileState?) -> UploadError? {
        let limits = configuration.limits
        if case .data(let bytes) = item.source, bytes.isEmpty {
            return UploadError(.fileDataEmpty, "the file has no data")
        }
        if item.declaredSize == 0 {
            return UploadError(.fileDataEmpty, "the file's declared size is 0")
        }
        if let problem = Self.itemProblem(of: item) {
            return UploadError(.invalidFileObject, problem)
        }
        if let state = liveDuplicate {
            return UploadError(.invalidFileObject, "fileId '\(item.fileId)' is already in the batch (\(state.rawValue))")
        }
        switch item.source {
        case .data(let bytes) where Int64(bytes.count) > limits.inlineMax:
            return UploadError(.fileSizeExceeded, "inline data of \(bytes.count) bytes exceeds limits.inlineMax (\(limits.inlineMax))")
        case .data(let bytes) where Int64(bytes.count) > limits.fileSizeMax:
            return UploadError(.fileSizeExceeded, "the file's \(bytes.count) bytes exceed limits.fileSizeMax (\(limits.fileSizeMax))")
        case .oversizedData(let byteCount):
            return UploadError(.fileSizeExceeded, "inline data of \(byteCount) bytes exceeds limits.inlineMax (\(limits.inlineMax))")
        default:
            break
        }
        if let declared = item.declaredSize, declared > limits.fileSizeMax {
            return UploadError(.fileSizeExceeded, "the declared size \(declared) exceeds limits.fileSizeMax (\(limits.fileSizeMax))")
        }
        return nil
    }

    /// Why an item cannot be taken in as it is, or nil. Its strings were checked once, where the record was decoded
    /// (their byte limits and characters): what failed there arrives as a malformed source.
    static func itemProblem(of item: FileItem) -> String? {
        if let declared = item.declaredSize, declared < 0 {
            return "size must not be negative"
        }
        if case .malformed(let reason) = item.source {
            return reason
        }
        return nil
    }

    private mutating func appendRejected(_ item: FileItem, requestId: String, error: UploadError, into effects: inout BatchEffects) {
        var entry = FileEntry(slot: takeSlot(), item: item, requestId: requestId, phase: .rejected(error), generation: takeGeneration())
        entry.item.releaseInlineBytes()
        entries.append(entry)
        directory.addRejected(entry.fileId, slot: entry.slot)
        effects.events.append(event(at: entries.count - 1, .rejected(error)))
    }

    /// Drops the oldest rejected files beyond the most recent `UploadResult.rejectedLimit`, keeping only their count:
    /// what a record says can then never grow the batch, its result or its snapshot without bound.
    mutating func trimRejections() {
        guard directory.rejectedCount > UploadResult.rejectedLimit else { return }
        var dropped: Set<Int> = []
        while directory.rejectedCount > UploadResult.rejectedLimit, let slot = directory.oldestRejection(),
              let index = index(ofSlot: slot) {
            directory.dropRejection(slot: slot, fileId: entries[index].fileId)
            dropped.insert(slot)
        }
        // One pass for all of them: a call that adds many rejections does not pay a shift of the batch for each.
        entries.removeAll { dropped.contains($0.slot) }
        entryVisits &+= entries.count
        droppedRejections += dropped.count
    }

    /// Re-using a failed file's id uploads the new source in the failed file's place (the reference's second retry path).
    private mutating func reuseFailed(at index: Int, with item: FileItem, requestId: String, into effects: inout BatchEffects) {
        if let staged = entries[index].staged { effects.actions.append(.release(staged)) }
        entries[index] = FileEntry(slot: entries[index].slot, item: item, requestId: requestId, generation: takeGeneration())
    }

    mutating func takeSlot() -> Int {
        defer { nextSlot += 1 }
        return nextSlot
    }

    /// Keeps a request's trace context; those of requests without files left go first, so the table stays no
    /// larger than the batch (events already told of them were stamped when they were made).
    private mutating func noteTrace(_ trace: TraceContext, of requestId: String) {
        if traces.count > entries.count {
            let live = Set(entries.lazy.map(\.requestId))
            traces = traces.filter { live.contains($0.key) }
        }
        traces[requestId] = trace
    }
}
