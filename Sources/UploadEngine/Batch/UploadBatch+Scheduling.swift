import Foundation
import WireFormat

extension UploadBatch {
    /// Starts queued files while slots are free, then sends the presign calls whose cohorts are ready.
    ///
    /// Files started in one pass by one request form a cohort and are presigned in one call once none of them is
    /// still staging: "the files of a job that are ready together are presigned in one call". Files that have
    /// waited `presignGatherWindow` for the rest of their cohort go without them, so a short file is not held back
    /// by a long copy; the rest follow in calls of their own, under the same rule.
    mutating func schedule(now: Date, into effects: inout BatchEffects) {
        // Held for a handover, files in flight still go on (their presign calls included); queued ones wait.
        guard !isHeld else { return issuePresigns(now: now, into: &effects) }
        var cohortByRequest: [String: Int] = [:]
        // One pass: the in-flight count is kept as files start, and the search for the next queued file resumes
        // where the last one stopped, so a pass costs O(files), not O(files × started).
        var inFlight = entries.countStates(\.isInFlight)
        var index = entries.startIndex
        entryVisits &+= entries.count
        while inFlight < concurrency, slotGrants > 0, index < entries.endIndex {
            entryVisits &+= 1
            guard entries.isStartable(index, at: now) else {
                index += 1
                continue
            }
            let requestId = entries[index].requestId
            let cohort = cohortByRequest[requestId] ?? {
                nextCohort += 1
                return nextCohort
            }()
            cohortByRequest[requestId] = cohort
            start(index, cohort: cohort, now: now, into: &effects)
            if entries[index].state.isInFlight {
                inFlight += 1
                if slotGrants != .max { slotGrants -= 1 }
            }
            // A file whose start failed at once and may go again now (a zero backoff) is looked at again, as
            // before any other; anything else moves the search on.
            let again = entries.isStartable(index, at: now)
            if !again { index += 1 }
        }
        issuePresigns(now: now, into: &effects)
    }

    /// What the batch uses and could use of the worker's transfer slots (DESIGN §12 *Fair share*): a slot for each
    /// file in flight, and one for each queued file it would start now (up to its concurrency; none while held for a
    /// handover). Files waiting for a slot hold nothing but their place in the batch.
    public func slotDemand(now: Date) -> TransferShares.Demand {
        var inFlight = 0, startable = 0, waiting = 0
        for index in entries.indices {
            if entries[index].state.isInFlight {
                inFlight += 1
            } else if entries[index].state == .queued {
                waiting += 1
                if entries.isStartable(index, at: now) { startable += 1 }
            }
        }
        let wanted = isHeld ? inFlight : min(concurrency, inFlight + startable)
        return TransferShares.Demand(tenant: context.shareTenant, inUse: inFlight, wanted: wanted, waiting: waiting)
    }

    /// The worker granted the batch `count` slots: starts up to that many queued files.
    public mutating func grantSlots(_ count: Int, now: Date) -> BatchEffects {
        var effects = BatchEffects()
        let wasPending = status == .inProgress
        slotGrants = count
        schedule(now: now, into: &effects)
        finishInput(wasPending: wasPending, now: now, into: &effects)
        return effects
    }

    /// Moves a queued file into flight: stage it, or presign its retained bytes, or upload again with a still-valid
    /// target (a retry after a storage error reuses the URL; one that expires within `presignMinValidity` is
    /// presigned afresh).
    private mutating func start(_ index: Int, cohort: Int, now: Date, into effects: inout BatchEffects) {
        guard case .queued(let queued) = entries[index].phase else { return }
        guard let staged = queued.retained.staged else {
            entries[index].phase = .staging(cohort: cohort)
            effects.actions.append(.stage(entries[index].token, entries[index].item,
                                          sizeLimit: configuration.limits.fileSizeMax, resuming: entries[index].multipart))
            return
        }
        if let target = queued.retained.target, target.expiresAt.map({ $0 > now + configuration.presignMinValidity }) ?? true {
            beginUpload(index, staged: staged, target: target, cohort: cohort, now: now, into: &effects)
        } else {
            entries[index].phase = .presigning(Presigning(staged: staged, cohort: cohort, awaitingSince: now))
        }
    }

    private mutating func issuePresigns(now: Date, into effects: inout BatchEffects) {
        let gathering = cohortGathering()
        guard !gathering.isEmpty else { return }
        // The files of each due cohort, in input order; cohorts in the order their first file appears.
        var order: [Int] = []
        var members: [Int: [Int]] = [:]
        entryVisits &+= entries.count
        for index in entries.indices where entries[index].awaitingPresign {
            guard let cohort = entries[index].cohort, gathering[cohort]?.deadline.map({ $0 <= now }) ?? true else { continue }
            if members[cohort] == nil { order.append(cohort) }
            members[cohort, default: []].append(index)
        }
        for cohort in order {
            var calls: [PresignCall] = []
            for index in members[cohort] ?? [] {
                guard case .presigning(var presigning) = entries[index].phase else { continue }
                presigning.awaitingSince = nil
                entries[index].phase = .presigning(presigning)
                calls.append(presignCall(for: entries[index]))
            }
            effects.actions.append(.presign(calls))
        }
    }

    /// For every cohort with a file waiting for its presign call, when the wait ends: the gather window after the
    /// first of them became ready while a member is still staging; nil when nothing holds the call back. One pass
    /// over the batch for all cohorts, rather than one per cohort or per waiting file.
    func cohortGathering() -> [Int: (staging: Bool, deadline: Date?)] {
        // Asked on every transition (for the next deadline), and most find no file waiting for its call: then the
        // tables below are not built at all.
        guard entries.indices.contains(where: { entries[$0].state == .presigning && entries[$0].awaitingPresign }) else {
            return [:]
        }
        var staging: Set<Int> = []
        var firstReady: [Int: Date] = [:]
        for index in entries.indices where entries[index].state == .staging || entries[index].state == .presigning {
            switch entries[index].phase {
            case .staging(let cohort):
                staging.insert(cohort)
            case .presigning(let presigning):
                if let since = presigning.awaitingSince, firstReady[presigning.cohort].map({ since < $0 }) ?? true {
                    firstReady[presigning.cohort] = since
                }
            default:
                break
            }
        }
        var result: [Int: (staging: Bool, deadline: Date?)] = [:]
        for (cohort, ready) in firstReady {
            let held = staging.contains(cohort)
            result[cohort] = (held, held ? ready + configuration.presignGatherWindow : nil)
        }
        return result
    }

    func presignCall(for entry: FileEntry) -> PresignCall {
        let staged = entry.staged
        let file = PresignFile(fileId: entry.fileId, name: entry.item.name, mimeType: entry.resolvedMimeType,
                               size: staged?.size ?? 0, sha256: staged?.sha256 ?? "")
        return PresignCall(token: entry.token, file: file)
    }

    /// Hands a presigned file to the uploader, unless its URL is malformed or has already expired: those fail
    /// (retryably) before a byte is sent, and the next attempt presigns again.
    mutating func beginUpload(_ index: Int, staged: StagedFile, target: UploadTarget, cohort: Int, now: Date,
                              into effects: inout BatchEffects) {
        // Until the checks pass the file holds its bytes as a presigning one, so a failure below retains them.
        entries[index].phase = .presigning(Presigning(staged: staged, cohort: cohort, awaitingSince: nil))
        if !Self.isUsableUploadURL(target.uploadURL) {
            fail(index, UploadError(.invalidURL, "the presigned upload URL is malformed"), now: now, into: &effects)
            return
        }
        if !HeaderSafety.isSafe(target.headers) || !HeaderSafety.isSafe(target.method) {
            // Whatever presigner answered, a line break in its headers or method would smuggle lines into the upload.
            fail(index, UploadError(.invalidURL, "the presign answer's method or headers contain control characters"),
                 now: now, into: &effects)
            return
        }
        if let expiresAt = target.expiresAt, expiresAt <= now {
            fail(index, UploadError(.presignedURLExpired, "the upload URL expired before the transfer started"), now: now, into: &effects)
            return
        }
        // Held for a handover: the next owner uploads it, with these bytes' digest and, while valid, this URL.
        guard !isHeld else {
            entries[index].phase = .queued(Queued(retained: Retained(staged: staged, target: target)))
            return
        }
        entries[index].phase = .uploading(Uploading(staged: staged, target: target, cohort: cohort, lastMovement: now))
        var transfer = UploadTransfer(target: target, staged: staged, mimeType: entries[index].resolvedMimeType)
        transfer.trace = trace(of: entries[index].requestId)
        transfer.tenant = context.shareTenant
        transfer.multipart = entries[index].multipart
        effects.actions.append(.upload(entries[index].token, transfer))
    }

    /// An absolute http(s) URL with a host: `http` or `https` in any case, `://`, and an authority whose host,
    /// past any user info and before any port, is not empty. Read on the bytes: parsing each presigned URL with
    /// Foundation's `URL` was a tenth of handing a file to its upload. The HTTP client checks it again by libcurl's
    /// rules before sending.
    static func isUsableUploadURL(_ string: String) -> Bool {
        var string = string
        return string.withUTF8 { url in
            guard let (scheme, authority) = URLPrefix.parts(of: url),
                  URLPrefix.equalsCaseless(url, scheme, "http") || URLPrefix.equalsCaseless(url, scheme, "https")
            else { return false }
            // The host and port come after any user info, which ends at the authority's last `@`.
            let userInfoEnd = url[authority].lastIndex(of: UInt8(ascii: "@")).map { $0 + 1 } ?? authority.lowerBound
            let host = url[userInfoEnd..<authority.upperBound]
            guard let first = host.first else { return false }
            if first == UInt8(ascii: "[") {
                // An IP literal: `[` address `]`.
                guard let close = host.firstIndex(of: UInt8(ascii: "]")) else { return false }
                return close > host.startIndex + 1
            }
            return first != UInt8(ascii: ":")
        }
    }

    /// Ends an input: reports `completed` when the batch has just become idle (or, for an upload call, is idle),
    /// asks for the send an auto-mode drain calls for, and starts the send that is due.
    ///
    /// A record or control (`changed`), an input that emitted an event, or one that starts a message post counts as
    /// a change of durable state (§4.1), and so is owed a snapshot: every change of what a snapshot holds — a file
    /// settled, failed with its next attempt counted, removed; a send due or done; the event sequence — comes with
    /// one of those. A file only moving between pending phases (staged, presigned, uploading) is not one: it is
    /// written "pending" either way, and a small upload used to cost three snapshots instead of one or two.
    mutating func finishInput(wasPending: Bool, reportIfIdle: Bool = false, changed: Bool = false, now: Date,
                              into effects: inout BatchEffects) {
        trimRejections()
        if status == .idle, wasPending || reportIfIdle {
            completions += 1
            effects.events.append(UploadEvent(batchId: batchId, requestId: lastSettledRequestId, fileId: nil,
                                              kind: .completed(result), identity: String(completions)))
            if sending.options.send == .auto { sending.requested = true }
        }
        pumpSend(now: now, into: &effects)
        if changed || !effects.events.isEmpty || effects.actions.contains(where: \.startsAPost) {
            stateVersion += 1
            updatedAt = now
        }
    }
}
