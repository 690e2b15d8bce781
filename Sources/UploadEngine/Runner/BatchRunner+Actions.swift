import Foundation

extension BatchRunner {
    /// Starts the I/O an action asks for. Called under the state lock: it only creates tasks and cancels them.
    func perform(_ action: BatchAction, in state: inout State) {
        let context = state.batch.context
        switch action {
        case .stage(let token, let item, let sizeLimit):
            state.attempts[token] = Task {
                let outcome: Result<StagedFile, UploadError>
                do {
                    outcome = .success(try await stager.stage(item, batchId: context.batchId, sizeLimit: sizeLimit))
                } catch {
                    outcome = .failure(Self.classify(error, default: .sourceFetchFailed))
                }
                self.finish(token, staged: try? outcome.get()) { $0.staged(token, outcome, now: $1) }
            }
        case .presign(let calls):
            Task {
                let outcome: Result<[String: PresignOutcome], UploadError>
                do {
                    outcome = .success(try await presigner.presign(calls.map(\.file), in: context))
                } catch {
                    outcome = .failure(Self.classify(error, default: .presignedURLFailed))
                }
                self.finish(nil) { $0.presigned(calls, outcome, now: $1) }
            }
        case .upload(let token, let transfer):
            state.attempts[token] = Task {
                let outcome: Result<Void, UploadError>
                do {
                    try await uploader.upload(transfer) { sent, _ in self.reportProgress(token, sent: sent) }
                    outcome = .success(())
                } catch {
                    outcome = .failure(Self.classify(error, default: .s3UploadFailed))
                }
                self.finish(token) { $0.uploaded(token, outcome, now: $1) }
            }
        case .cancel(let token):
            state.attempts.removeValue(forKey: token)?.cancel()
        case .release(let staged):
            stager.releaseInBackground(staged)
        case .deleteObject(let attachment, let target):
            // Best effort: an object left behind is storage the backend's lifecycle rules reclaim, not a lost file.
            Task { try? await presigner.deleteObject(attachment, target: target) }
        case .post(let token, let message):
            let options = state.batch.messageOptions
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

    /// Anything a collaborator throws becomes an `UploadError`; unknown errors count as transient.
    static func classify(_ error: any Error, default code: UploadErrorCode) -> UploadError {
        if let error = error as? UploadError { return error }
        if error is CancellationError { return UploadError(code, "cancelled", retryable: true) }
        return UploadError(code, String(describing: error), retryable: true)
    }
}
