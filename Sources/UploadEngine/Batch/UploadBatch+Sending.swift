import Foundation

extension UploadBatch {
    /// Replaces the batch's message options (every job carries the batch's current ones).
    public mutating func setMessageOptions(_ options: MessageOptions) {
        sending.options = options
    }

    /// A `send` control: sends the uploaded attachments not yet sent, now (manual mode, or again after a message
    /// failed for good). A send under way finishes first; the requested one follows it.
    public mutating func requestSend(now: Date) -> BatchEffects {
        var effects = BatchEffects()
        let wasPending = status == .inProgress
        sending.requested = true
        finishInput(wasPending: wasPending, changed: true, now: now, into: &effects)
        return effects
    }

    /// The message of `token` went out.
    public mutating func messagePosted(_ token: SendToken, responseId: String?, now: Date) -> BatchEffects {
        var effects = BatchEffects()
        let wasPending = status == .inProgress
        guard token.generation == sending.generation, var run = sending.run, run.notBefore == nil else { return effects }
        let message = run.current
        sending.sent.append(SentMessage(muid: message.muid, fileIds: message.fileIds))
        sending.sentFileIds.formUnion(message.fileIds)
        if message.caption != nil { sending.captionSent = true }
        effects.events.append(messageEvent(.messageSent(muid: message.muid, type: message.type, fileIds: message.fileIds,
                                                         responseId: responseId), attempt: run.attempt))
        run.next += 1
        run.attempt = 1
        if run.next < run.plan.count {
            sending.run = run
            post(into: &effects)
        } else {
            sending.run = nil
        }
        finishInput(wasPending: wasPending, now: now, into: &effects)
        return effects
    }

    /// The message of `token` could not be sent: its next automatic attempt follows after the backoff, or, with none
    /// left (or a refusal a retry cannot fix), the run ends and the rest of the plan waits for a later drain or
    /// `send` control, keeping plan order.
    public mutating func messageFailed(_ token: SendToken, _ error: UploadError, now: Date) -> BatchEffects {
        var effects = BatchEffects()
        let wasPending = status == .inProgress
        guard token.generation == sending.generation, var run = sending.run, run.notBefore == nil else { return effects }
        let delay = error.isRetryable
            ? configuration.retry.delay(afterAttempt: run.attempt, retryAfter: error.retryAfter, using: &random)
            : nil
        effects.events.append(messageEvent(.messageFailed(muid: run.current.muid, error: error, attempt: run.attempt,
                                                           willRetry: delay != nil), attempt: run.attempt))
        if let delay {
            run.notBefore = now + delay
            run.attempt += 1
            sending.run = run
        } else {
            sending.run = nil
        }
        finishInput(wasPending: wasPending, now: now, into: &effects)
        return effects
    }

    /// Starts what is due: a requested send once no run is under way, a message whose retry backoff is over.
    mutating func pumpSend(now: Date, into effects: inout BatchEffects) {
        // Held for a handover: a send due or waiting for its retry goes with the snapshot to the next owner.
        guard !isHeld else { return }
        if var run = sending.run {
            if let notBefore = run.notBefore, notBefore <= now {
                run.notBefore = nil
                sending.run = run
                post(into: &effects)
            }
            return
        }
        guard sending.requested else { return }
        sending.requested = false
        guard configuration.sendsMessages else { return }
        let unsent = entries.compactMap { entry -> MessagePlan.File? in
            guard let attachment = entry.attachment, !sending.sentFileIds.contains(entry.fileId) else { return nil }
            return (attachment, entry.generation)
        }
        let plan = MessagePlan.make(batchId: batchId, files: unsent,
                                    caption: sending.captionSent ? nil : sending.options.caption,
                                    perMessage: configuration.limits.attachmentsPerMessage,
                                    maxBytes: configuration.limits.messageBytesMax)
        guard !plan.isEmpty else { return }
        sending.requestId = lastSettledRequestId
        sending.run = SendRun(plan: plan, awaitingRecord: true)
        sending.generation += 1
        effects.actions.append(.awaitRecord(SendToken(generation: sending.generation)))
    }

    /// The snapshot carrying the send plan of `token` is recorded: its first message is posted (or, while the batch
    /// is held for a handover, left due for the next owner, which has the plan).
    public mutating func planRecorded(_ token: SendToken, now: Date) -> BatchEffects {
        var effects = BatchEffects()
        guard token.generation == sending.generation, var run = sending.run, run.awaitingRecord else { return effects }
        run.awaitingRecord = false
        if isHeld { run.notBefore = now }
        sending.run = run
        if !isHeld { post(into: &effects) }
        return effects
    }

    /// Asks the driver to post the run's current message, as a new attempt.
    private mutating func post(into effects: inout BatchEffects) {
        guard let run = sending.run else { return }
        sending.generation += 1
        effects.actions.append(.post(SendToken(generation: sending.generation), run.current))
    }

    /// Forgets the files of `fileIds` in what was sent (they left the batch); messages left with no file go too.
    mutating func forgetSent(_ fileIds: Set<String>) {
        guard !sending.sentFileIds.isDisjoint(with: fileIds) else { return }
        sending.sentFileIds.subtract(fileIds)
        sending.sent = sending.sent.compactMap { message in
            let kept = message.fileIds.filter { !fileIds.contains($0) }
            return kept.isEmpty ? nil : SentMessage(muid: message.muid, fileIds: kept)
        }
    }

    private func messageEvent(_ kind: UploadEvent.Kind, attempt: Int) -> UploadEvent {
        UploadEvent(batchId: batchId, requestId: sending.requestId, fileId: nil, kind: kind, identity: String(attempt))
    }
}

extension UploadBatch {
    /// Notes that the jobs-topic record at `offset` was applied to the batch.
    mutating func noteApplied(offset: Int64, now: Date) {
        guard offset > appliedThrough ?? -1 else { return }
        appliedThrough = offset
        stateVersion += 1
        updatedAt = now
    }

    /// Starts what a batch restored from a snapshot has pending: queued files (the restore queues every file that
    /// was in flight) and a send that was under way or due.
    /// A batch that resumes work is recorded again at once, under its new owner's group generation: a snapshot
    /// its previous owner still writes (a zombie, §4.1 *Fencing*) is then ignored at the next restore.
    public mutating func resume(now: Date) -> BatchEffects {
        var effects = BatchEffects()
        schedule(now: now, into: &effects)
        pumpSend(now: now, into: &effects)
        if !effects.actions.isEmpty {
            stateVersion += 1
            updatedAt = now
        }
        return effects
    }
}
