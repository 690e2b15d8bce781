import Foundation

extension UploadBatch {
    /// A stage finished. Bytes of a superseded attempt are given straight back.
    public mutating func staged(_ token: AttemptToken, _ outcome: Result<StagedFile, UploadError>, now: Date) -> BatchEffects {
        var effects = BatchEffects()
        let wasPending = status == .inProgress
        guard let index = index(of: token), case .staging(let cohort) = entries[index].phase else {
            if case .success(let staged) = outcome { effects.actions.append(.release(staged)) }
            return effects
        }
        switch outcome {
        case .success(let staged):
            let limit = configuration.limits.fileSizeMax
            if staged.size == 0 {
                effects.actions.append(.release(staged))
                reject(index, UploadError(.fileDataEmpty, "the source has no data"), into: &effects)
            } else if staged.size > limit {
                effects.actions.append(.release(staged))
                reject(index, UploadError(.fileSizeExceeded, "the file's \(staged.size) bytes exceed limits.fileSizeMax (\(limit))"), into: &effects)
            } else {
                entries[index].phase = .presigning(Presigning(staged: staged, cohort: cohort, awaitingSince: now))
            }
        case .failure(let error):
            settle(index, error, now: now, into: &effects)
        }
        schedule(now: now, into: &effects)
        finishInput(wasPending: wasPending, now: now, into: &effects)
        return effects
    }

    /// A presign call finished: answers per file, or the failure of the call as a whole.
    ///
    /// Batch presign isolation: a multi-file call that fails as a whole, or answers without some file, is repeated
    /// file by file so one bad file cannot sink the rest. A one-file call that fails fails its file
    /// (`ERR_PRESIGNED_URL_FAILED`, retryable); a refusal rejects it with the service's code.
    public mutating func presigned(_ calls: [PresignCall], _ outcome: Result<[String: PresignOutcome], UploadError>, now: Date) -> BatchEffects {
        var effects = BatchEffects()
        let wasPending = status == .inProgress
        let live = calls.filter { call in index(of: call.token).map { entries[$0].state == .presigning } ?? false }
        switch outcome {
        case .failure(let error):
            if calls.count > 1 {
                effects.actions += live.map { .presign([$0]) }
            } else {
                for call in live {
                    guard let index = index(of: call.token) else { continue }
                    let failure = UploadError(.presignedURLFailed, "presigning failed: \(error.message)", retryable: true, retryAfter: error.retryAfter)
                    fail(index, failure, now: now, into: &effects)
                }
            }
        case .success(let answers):
            for call in live {
                guard let index = index(of: call.token) else { continue }
                switch answers[call.file.fileId] {
                case .target(let target):
                    guard case .presigning(let presigning) = entries[index].phase else { continue }
                    beginUpload(index, staged: presigning.staged, target: target, cohort: presigning.cohort, now: now,
                                into: &effects)
                case .refused(let refusal):
                    let code = refusal.code.rawValue.isEmpty ? UploadErrorCode.presignedURLFailed : refusal.code
                    reject(index, UploadError(code, refusal.message, retryable: false), into: &effects)
                case nil where calls.count > 1:
                    effects.actions.append(.presign([call]))
                case nil:
                    fail(index, UploadError(.presignedURLFailed, "the presign answer has no entry for the file", retryable: true), now: now, into: &effects)
                }
            }
        }
        schedule(now: now, into: &effects)
        finishInput(wasPending: wasPending, now: now, into: &effects)
        return effects
    }

    /// Upload progress. Every report restarts the stall timer: one with new bytes, and one repeating the bytes
    /// sent, by which the uploader says it waits on the worker's own limits or on storage's answer (a bandwidth
    /// cap, CompleteMultipartUpload) — waiting is never a stall (DESIGN §4). Events are throttled, never go
    /// backwards, and stop short of 100 % (the 100 % event comes with success).
    public mutating func progress(_ token: AttemptToken, sent: Int64, now: Date) -> BatchEffects {
        var effects = BatchEffects()
        guard let index = index(of: token), case .uploading(var uploading) = entries[index].phase else { return effects }
        let size = uploading.staged.size
        if sent >= uploading.sentBytes {
            uploading.sentBytes = sent
            uploading.lastMovement = now
            entries[index].phase = .uploading(uploading)
        }
        let mark = entries[index].progress
        let due = mark.lastEvent.map { now >= $0 + configuration.progressInterval } ?? true
        if due, sent > mark.reportedBytes, sent < size {
            entries[index].progress = ProgressMark(reportedBytes: sent, lastEvent: now)
            let percent = Int(sent * 100 / size)
            effects.events.append(event(at: index, .progress(loaded: sent, total: size, percent: percent)))
        }
        return effects
    }

    /// An upload finished.
    ///
    /// - Parameter sha256: the digest of the bytes sent, when the upload computed it (a source hashed while it was
    ///   read); nil keeps the staged file's.
    public mutating func uploaded(_ token: AttemptToken, _ outcome: Result<Void, UploadError>, sha256: String? = nil,
                                  now: Date) -> BatchEffects {
        var effects = BatchEffects()
        let wasPending = status == .inProgress
        guard let index = index(of: token), entries[index].state == .uploading else { return effects }
        switch outcome {
        case .success:
            succeed(index, sha256: sha256, into: &effects)
        case .failure(let error):
            settle(index, error, now: now, into: &effects)
        }
        schedule(now: now, into: &effects)
        finishInput(wasPending: wasPending, now: now, into: &effects)
        return effects
    }

    /// Storage started or advanced the multipart upload of an attempt: the file records it, so that its next attempt,
    /// here or on the batch's next owner, resumes it. A change of durable state: the snapshot after it holds the parts.
    public mutating func multipartStored(_ token: AttemptToken, _ upload: MultipartUpload, now: Date) -> BatchEffects {
        var effects = BatchEffects()
        guard let index = index(of: token), entries[index].state == .uploading, entries[index].multipart != upload else {
            return effects
        }
        entries[index].multipart = upload
        finishInput(wasPending: status == .inProgress, changed: true, now: now, into: &effects)
        return effects
    }

    /// Time passed: aborts stalled uploads and starts files whose retry backoff is over.
    public mutating func tick(now: Date) -> BatchEffects {
        var effects = BatchEffects()
        let wasPending = status == .inProgress
        let stallTimeout = configuration.stallTimeout
        for index in entries.indices {
            // A file whose backoff is over is an ordinary queued file from now on: left with its deadline in the
            // past, it would keep the batch's timer firing for as long as it waits for a slot.
            if case .queued(var queued) = entries[index].phase, let notBefore = queued.notBefore, notBefore <= now {
                queued.notBefore = nil
                entries[index].phase = .queued(queued)
            }
            guard case .uploading(let uploading) = entries[index].phase, now >= uploading.lastMovement + stallTimeout else { continue }
            effects.actions.append(.cancel(entries[index].token))
            let seconds = stallTimeout.components.seconds
            fail(index, UploadError(.uploadStalled, "no progress for \(seconds)s; the upload was aborted"), now: now, into: &effects)
        }
        schedule(now: now, into: &effects)
        finishInput(wasPending: wasPending, now: now, into: &effects)
        return effects
    }

    // MARK: - Settling one file

    private mutating func succeed(_ index: Int, sha256: String?, into effects: inout BatchEffects) {
        guard case .uploading(let uploading) = entries[index].phase else { return }
        let staged = uploading.staged
        // The entry's fields are read where it lies: a copy of the whole entry retains each of its references.
        let attachment = Attachment(fileId: entries[index].fileId, name: entries[index].item.name,
                                    url: uploading.target.fileURL, mimeType: entries[index].resolvedMimeType,
                                    size: staged.size, sha256: sha256 ?? staged.sha256,
                                    encryption: uploading.target.serverSideEncryption)
        if entries[index].progress.reportedBytes < staged.size {
            entries[index].progress.reportedBytes = staged.size
            effects.events.append(event(at: index, .progress(loaded: staged.size, total: staged.size, percent: 100)))
        }
        entries[index].phase = .uploaded(Uploaded(attachment: attachment, target: uploading.target))
        entries[index].multipart = nil
        entries[index].item.releaseInlineBytes()
        effects.actions.append(.release(staged))
        lastSettledRequestId = entries[index].requestId
        effects.events.append(event(at: index, .uploaded(attachment)))
    }

    /// Rejected when retrying cannot help, failed otherwise: exactly one of the two per unsuccessful attempt.
    mutating func settle(_ index: Int, _ error: UploadError, now: Date, into effects: inout BatchEffects) {
        if error.isRetryable {
            fail(index, error, now: now, into: &effects)
        } else {
            reject(index, error, into: &effects)
        }
    }

    mutating func reject(_ index: Int, _ error: UploadError, into effects: inout BatchEffects) {
        var rejected = error
        rejected.isRetryable = false
        if let staged = entries[index].staged { effects.actions.append(.release(staged)) }
        entries[index].abandonMultipart(into: &effects)
        entries[index].item.releaseInlineBytes()
        entries[index].generation = takeGeneration()
        entries[index].phase = .rejected(rejected)
        directory.liveBecameRejected(entries[index].fileId, slot: entries[index].slot)
        lastSettledRequestId = entries[index].requestId
        effects.events.append(event(at: index, .rejected(rejected)))
    }

    /// A retryable failure: queue the next automatic attempt after the backoff, or settle as failed when none is
    /// left. Staged bytes are kept either way — a source kept open if the stager allows it — except after
    /// `ERR_SOURCE_FETCH_FAILED`: bytes whose source failed, or changed in place under the upload, are given back
    /// so the next attempt stages the source again. A URL that expired or was malformed is dropped so the next
    /// attempt presigns again.
    mutating func fail(_ index: Int, _ error: UploadError, now: Date, into effects: inout BatchEffects) {
        let attempt = entries[index].attempt
        let delay = configuration.retry.delay(afterAttempt: attempt, retryAfter: error.retryAfter, using: &random)
        var retained = Retained(staged: entries[index].staged)
        if let staged = retained.staged, error.code == .sourceFetchFailed {
            effects.actions.append(.release(staged))
            retained = Retained()
        } else if case .uploading(let uploading) = entries[index].phase,
                  error.code != .presignedURLExpired, error.code != .invalidURL {
            retained.target = uploading.target
        }
        entries[index].generation = takeGeneration()
        if let delay {
            entries[index].phase = .queued(Queued(retained: retained, notBefore: now + delay))
            entries[index].attempt = attempt + 1
        } else {
            entries[index].phase = .failed(Failed(error: error, retained: retained))
            // Given up until someone retries it by hand: its parts are not kept waiting for that.
            entries[index].abandonMultipart(into: &effects)
            lastSettledRequestId = entries[index].requestId
        }
        if let staged = retained.staged, case .source = staged.bytes {
            effects.actions.append(.keep(entries[index].token, staged))
        }
        effects.events.append(event(at: index, .failed(error, attempt: attempt, willRetry: delay != nil)))
    }

    /// The stager refused to keep a source open for the file's next attempt (the worker holds as many as it may):
    /// the file gives it back, and its next attempt stages the source again. A file already in flight again keeps
    /// what it is reading.
    public mutating func keepRefused(_ token: AttemptToken) -> BatchEffects {
        var effects = BatchEffects()
        if let index = index(of: token), let staged = entries[index].dropRetained() {
            effects.actions.append(.release(staged))
        }
        return effects
    }
}
