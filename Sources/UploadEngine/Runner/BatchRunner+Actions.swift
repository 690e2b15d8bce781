import Foundation

extension BatchRunner {
    /// Starts the I/O an action asks for. Called under the state lock: it only creates tasks and cancels them, and
    /// asks the stager's non-blocking `keep` and `releaseInBackground` (which closes an open source at most). A stage, presign or upload goes to the task `claim` offers, if it has
    /// not taken one already, and otherwise to a new task.
    func perform(_ action: BatchAction, in state: inout State, claim: inout WorkClaim) {
        let context = state.batch.context
        switch action {
        case .stage(let token, let item, let sizeLimit, let resuming):
            start(.stage(token, item, sizeLimit: sizeLimit, batchId: context.batchId, resuming: resuming),
                  in: &state, claim: &claim)
        case .presign(let calls):
            var context = context
            context.trace = calls.first.flatMap { state.batch.trace(of: $0.token) }
            start(.presign(calls, context), in: &state, claim: &claim)
        case .upload(let token, var transfer):
            transfer.holdsSlot = shares != nil
            start(.upload(token, transfer), in: &state, claim: &claim)
        case .cancel(let token):
            state.attempts.removeValue(forKey: token)?.cancel()
        case .release(let staged):
            stager.releaseInBackground(staged)
        case .keep(let token, let staged):
            guard !stager.keep(staged) else { return }
            // Refused: the batch gives the bytes back at once, before anything else can start the file again.
            for action in state.batch.keepRefused(token).actions { perform(action, in: &state, claim: &claim) }
        case .deleteObject(let attachment, let target):
            // Best effort: an object left behind is storage the backend's lifecycle rules reclaim, not a lost file.
            Task { try? await presigner.deleteObject(attachment, target: target) }
        case .abortUpload(let upload):
            Task { await uploader.abandon(upload) }
        case .awaitRecord(let token):
            // The transition's last state version: the plan is part of it.
            state.awaitingRecord = (token, state.batch.stateVersion)
        case .post(let token, let message):
            let options = state.batch.messageOptions
            var context = context
            context.trace = state.batch.trace(of: state.batch.sending.requestId)
            guard let poster else {
                // No poster: the batch was built to send but its driver cannot; the failure ends the run.
                state.posting = Task {
                    self.finish(nil) { $0.messageFailed(token, UploadError("ERR_MESSAGE_SEND_FAILED", "messages are off", retryable: false), now: $1) }
                }
                return
            }
            state.posting = Task {
                let outcome: Result<String?, UploadError>
                do {
                    outcome = .success(try await poster.post(message, context: context, options: options))
                } catch {
                    outcome = .failure(Self.classify(error, default: "ERR_MESSAGE_SEND_FAILED"))
                }
                self.finish(nil) { batch, now in
                    switch outcome {
                    case .success(let responseId): batch.messagePosted(token, responseId: responseId, now: now)
                    case .failure(let error): batch.messageFailed(token, error, now: now)
                    }
                }
            }
        }
    }

    private func start(_ work: AttemptWork, in state: inout State, claim: inout WorkClaim) {
        let task: AttemptTask
        if let offered = claim.task, claim.work == nil {
            claim.work = work
            task = offered
        } else {
            task = AttemptTask.start(work, on: self)
        }
        if let token = work.token { state.attempts[token] = task }
        if case .presign = work { state.presigning.insert(task) }
    }

    /// Does one piece of attempt work and feeds its outcome to the batch; returns the work the same task goes on
    /// with.
    func run(_ work: AttemptWork, in task: AttemptTask) async -> AttemptWork? {
        switch work {
        case .stage(let token, let item, let sizeLimit, let batchId, let resuming):
            let outcome: Result<StagedFile, UploadError>
            do {
                outcome = .success(
                    try await stager.stage(item, batchId: batchId, sizeLimit: sizeLimit, resuming: resuming))
            } catch {
                outcome = .failure(Self.classify(error, default: .sourceFetchFailed))
            }
            return finish(token, staged: try? outcome.get(), continuing: task) { $0.staged(token, outcome, now: $1) }
        case .presign(let calls, let context):
            let outcome: Result<[String: PresignOutcome], UploadError>
            do {
                outcome = .success(try await presigner.presign(calls.map(\.file), in: context))
            } catch {
                outcome = .failure(Self.classify(error, default: .presignedURLFailed))
            }
            return finish(nil, endingPresign: true, continuing: task) { $0.presigned(calls, outcome, now: $1) }
        case .upload(let token, let transfer):
            let outcome = await upload(transfer, token: token)
            return finish(token, continuing: task) { batch, now in
                batch.uploaded(token, outcome.map { _ in () }, sha256: try? outcome.get(), now: now)
            }
        }
    }

    /// One upload attempt and its end (``SourceStager/finishUpload(of:uploaded:)``): the digest of the bytes sent, or
    /// the attempt's failure — `ERR_SOURCE_FETCH_FAILED` when its source changed in place, whatever the upload did.
    /// A cancelled attempt's outcome is dropped, so its end is not checked.
    private func upload(_ transfer: UploadTransfer, token: AttemptToken) async -> Result<String, UploadError> {
        let outcome: Result<Void, UploadError>
        do {
            try await uploader.upload(
                transfer, progress: { sent, _ in self.reportProgress(token, sent: sent) },
                stored: { upload in self.recordMultipart(token, upload) })
            outcome = .success(())
        } catch {
            outcome = .failure(Self.classify(error, default: .s3UploadFailed))
        }
        guard !Task.isCancelled else { return outcome.map { transfer.staged.sha256 } }
        do {
            let sha256 = try await stager.finishUpload(of: transfer.staged, uploaded: (try? outcome.get()) != nil)
            return outcome.map { sha256 }
        } catch {
            return .failure(Self.classify(error, default: .sourceFetchFailed))
        }
    }

    /// Anything a collaborator throws becomes an `UploadError`; unknown errors count as transient.
    static func classify(_ error: any Error, default code: UploadErrorCode) -> UploadError {
        if let error = error as? UploadError { return error }
        if error is CancellationError { return UploadError(code, "cancelled", retryable: true) }
        return UploadError(code, String(describing: error), retryable: true)
    }
}
