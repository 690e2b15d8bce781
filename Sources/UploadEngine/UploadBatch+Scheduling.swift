import Foundation

extension UploadBatch {
    /// Starts queued files while slots are free, then sends the presign calls whose cohorts are ready.
    ///
    /// Files started in one pass by one request form a cohort and are presigned in one call once none of them is
    /// still staging: "the files of a job that are ready together are presigned in one call". Files that have
    /// waited `presignGatherWindow` for the rest of their cohort go without them, so a short file is not held back
    /// by a long copy; the rest follow in calls of their own, under the same rule.
    mutating func schedule(now: Date, into effects: inout BatchEffects) {
        var cohortByRequest: [String: Int] = [:]
        while entries.lazy.filter({ $0.state.isInFlight }).count < concurrency,
              let index = entries.firstIndex(where: { $0.state == .queued && ($0.notBefore.map { $0 <= now } ?? true) }) {
            let requestId = entries[index].requestId
            let cohort = cohortByRequest[requestId] ?? {
                nextCohort += 1
                return nextCohort
            }()
            cohortByRequest[requestId] = cohort
            start(index, cohort: cohort, now: now, into: &effects)
        }
        issuePresigns(now: now, into: &effects)
    }

    /// Moves a queued file into flight: stage it, or presign its retained bytes, or upload again with a still-valid
    /// target (a retry after a storage error reuses the URL; an expired one is presigned afresh).
    private mutating func start(_ index: Int, cohort: Int, now: Date, into effects: inout BatchEffects) {
        entries[index].notBefore = nil
        entries[index].cohort = cohort
        if entries[index].staged == nil {
            entries[index].state = .staging
            effects.actions.append(.stage(entries[index].token, entries[index].item, sizeLimit: configuration.limits.fileSizeMax))
        } else if let target = entries[index].target, target.expiresAt.map({ $0 > now }) ?? true {
            beginUpload(index, now: now, into: &effects)
        } else {
            entries[index].target = nil
            entries[index].state = .presigning
            entries[index].awaitingPresignSince = now
        }
    }

    private mutating func issuePresigns(now: Date, into effects: inout BatchEffects) {
        var cohorts: [Int] = []
        for entry in entries where entry.awaitingPresign && !cohorts.contains(entry.cohort) {
            cohorts.append(entry.cohort)
        }
        for cohort in cohorts where gatherDeadline(of: cohort).map({ $0 <= now }) ?? true {
            var calls: [PresignCall] = []
            for index in entries.indices where entries[index].awaitingPresign && entries[index].cohort == cohort {
                entries[index].awaitingPresignSince = nil
                calls.append(presignCall(for: entries[index]))
            }
            effects.actions.append(.presign(calls, isolated: false))
        }
    }

    /// When a cohort's ready files stop waiting for its members still staging: the gather window after the first
    /// of them became ready. nil when no member is staging (or none is waiting): nothing holds the call back.
    func gatherDeadline(of cohort: Int) -> Date? {
        guard entries.contains(where: { $0.cohort == cohort && $0.state == .staging }) else { return nil }
        let firstReady = entries.lazy.filter { $0.cohort == cohort }.compactMap(\.awaitingPresignSince).min()
        return firstReady.map { $0 + configuration.presignGatherWindow }
    }

    func presignCall(for entry: FileEntry) -> PresignCall {
        let staged = entry.staged
        let file = PresignFile(fileId: entry.fileId, name: entry.item.name, mimeType: entry.resolvedMimeType,
                               size: staged?.size ?? 0, sha256: staged?.sha256 ?? "")
        return PresignCall(token: entry.token, file: file)
    }

    /// Hands a presigned file to the uploader, unless its URL is malformed or has already expired: those fail
    /// (retryably) before a byte is sent, and the next attempt presigns again.
    mutating func beginUpload(_ index: Int, now: Date, into effects: inout BatchEffects) {
        guard let target = entries[index].target, let staged = entries[index].staged else { return }
        if !Self.isUsableUploadURL(target.uploadURL) {
            fail(index, UploadError(.invalidURL, "the presigned upload URL is malformed"), now: now, into: &effects)
            return
        }
        if let expiresAt = target.expiresAt, expiresAt <= now {
            fail(index, UploadError(.presignedURLExpired, "the upload URL expired before the transfer started"), now: now, into: &effects)
            return
        }
        entries[index].state = .uploading
        entries[index].lastMovement = now
        entries[index].sentBytes = 0
        let transfer = UploadTransfer(target: target, staged: staged, mimeType: entries[index].resolvedMimeType)
        effects.actions.append(.upload(entries[index].token, transfer))
    }

    /// An absolute http(s) URL with a host.
    static func isUsableUploadURL(_ string: String) -> Bool {
        guard let url = URL(string: string), let scheme = url.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty else { return false }
        return true
    }

    /// Ends an input: reports `completed` when the batch has just become idle (or, for an upload call, is idle).
    mutating func finishInput(wasPending: Bool, reportIfIdle: Bool = false, into effects: inout BatchEffects) {
        guard status == .idle, wasPending || reportIfIdle else { return }
        effects.events.append(UploadEvent(batchId: batchId, requestId: lastSettledRequestId, fileId: nil, kind: .completed(result)))
    }
}
