import Foundation

extension UploadBatch {
    /// Removes a file (the reference's `removeAttachment`): aborts it silently if in flight, drops it if uploaded
    /// (deleting the stored object unless it already went out in a message), and frees its capacity.
    public mutating func remove(fileId: String, now: Date) -> BatchEffects {
        var effects = BatchEffects()
        let wasPending = status == .inProgress
        guard let primary = primaryIndex(of: fileId) else {
            effects.outcome = .unknownFile
            return effects
        }
        let removed = event(at: primary, .removed)
        let wasSent = sending.sentFileIds.contains(fileId)
        for entry in entries where entry.fileId == fileId {
            discard(entry, deleteObject: !wasSent, into: &effects)
        }
        entries.removeAll { $0.fileId == fileId }
        directory.removeAll(fileId)
        forgetSent([fileId])
        effects.events.append(removed)
        schedule(now: now, into: &effects)
        finishInput(wasPending: wasPending, changed: true, now: now, into: &effects)
        return effects
    }

    /// Retries a failed file (the reference's `retryAttachment`) from its retained bytes with a fresh run of automatic
    /// attempts; an expired URL is presigned again. A no-op for unknown ids and files that have not failed.
    public mutating func retry(fileId: String, now: Date) -> BatchEffects {
        var effects = BatchEffects()
        let wasPending = status == .inProgress
        guard let index = primaryIndex(of: fileId) else {
            effects.outcome = .unknownFile
            return effects
        }
        guard entries[index].state == .failed else {
            effects.outcome = .notApplicable
            return effects
        }
        guard case .failed(let failed) = entries[index].phase else { return effects }
        entries[index].phase = .queued(Queued(retained: failed.retained))
        entries[index].attempt = 1
        entries[index].generation = takeGeneration()
        schedule(now: now, into: &effects)
        finishInput(wasPending: wasPending, changed: true, now: now, into: &effects)
        return effects
    }

    /// Drops the whole batch (the reference's `clearAll`): aborts everything in flight silently and gives back all
    /// staged bytes. Stored objects stay: some may already be in sent messages. What a batch re-created under the
    /// same id continues stays too — the event sequence, the generations, the state version, the applied offset —
    /// and the batch is ``isCleared`` until a job takes it up again.
    public mutating func clear(now: Date) -> BatchEffects {
        var effects = BatchEffects()
        let wasPending = status == .inProgress
        var seen: Set<String> = []
        for index in entries.indices {
            discard(entries[index], deleteObject: false, into: &effects)
            if seen.insert(entries[index].fileId).inserted {
                effects.events.append(event(at: index, .removed))
            }
        }
        entries.removeAll()
        directory.removeAll()
        droppedRejections = 0
        let generation = sending.generation + 1
        sending = SendState(options: sending.options)
        sending.generation = generation
        isCleared = true
        finishInput(wasPending: wasPending, changed: true, now: now, into: &effects)
        return effects
    }

    /// Changes how many files are in flight at once (the reference's `setConcurrency`). Files already in flight are
    /// never interrupted; the new value governs every file started from now on.
    public mutating func setConcurrency(_ value: Int, now: Date) -> BatchEffects {
        var effects = BatchEffects()
        let wasPending = status == .inProgress
        concurrency = max(1, value)
        schedule(now: now, into: &effects)
        finishInput(wasPending: wasPending, changed: true, now: now, into: &effects)
        return effects
    }

    /// Gives back the retained bytes of failed files (after `staging.retainFailed`); a later retry stages the
    /// source again. Not a change of durable state: snapshots never carry staged bytes.
    public mutating func releaseRetainedBytes() -> BatchEffects {
        var effects = BatchEffects()
        for index in entries.indices where entries[index].state == .failed {
            if let staged = entries[index].dropRetained() { effects.actions.append(.release(staged)) }
        }
        return effects
    }

    private func discard(_ entry: FileEntry, deleteObject: Bool, into effects: inout BatchEffects) {
        var entry = entry
        entry.abandonMultipart(into: &effects)
        if entry.state == .staging || entry.state == .uploading {
            effects.actions.append(.cancel(entry.token))
        }
        if let staged = entry.staged { effects.actions.append(.release(staged)) }
        if deleteObject, case .uploaded(let uploaded) = entry.phase, let target = uploaded.target {
            effects.actions.append(.deleteObject(uploaded.attachment, target))
        }
    }
}
