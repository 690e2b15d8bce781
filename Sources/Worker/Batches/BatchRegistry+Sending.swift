import Foundation
import UploadEngine

extension BatchRegistry {
    /// Starts sending the batch's unsent attachments unless a send is under way (then it runs again afterwards).
    /// `requested` marks a drain in auto mode; a `send` control sets the request itself.
    func startSendingIfDue(_ batchId: String, requested: Bool = false) {
        let start = sessions.withLock { sessions in
            sessions.update(batchId) { session -> BatchSession? in
                if requested { session.sendRequested = true }
                guard session.sendRequested, !session.sending else { return nil }
                session.sendRequested = false
                guard dependencies.sender != nil, !session.runner.unsentAttachments.isEmpty else { return nil }
                session.sending = true
                return session
            } ?? nil
        }
        guard let session = start, let sender = dependencies.sender else { return }
        Task {
            await send(session, batchId: batchId, through: sender)
            let again = sessions.withLock { sessions in
                sessions.update(batchId) { session in
                    session.sending = false
                    return session.sendRequested
                } ?? false
            }
            if again { startSendingIfDue(batchId) }
            settleIfIdle(batchId)
        }
    }

    /// Sends the plan message by message, in plan order, each with its own retries.
    private func send(_ session: BatchSession, batchId: String, through sender: any MessageSender) async {
        let unsent = session.runner.unsentAttachments
        guard !unsent.isEmpty else { return }
        let caption = session.captionSent ? nil : session.options.caption
        let plan = MessagePlan.make(batchId: batchId, attachments: unsent, caption: caption,
                                    perMessage: configuration.limits.attachmentsPerMessage)
        var metadata = session.options.metadata
        metadata["batchId"] = .string(batchId)
        for planned in plan {
            let message = OutgoingMessage(muid: planned.muid, type: planned.type, receiver: session.context.receiver,
                                          sender: session.context.sender, parentId: session.context.parentMessageId,
                                          caption: planned.caption, metadata: metadata, tags: session.options.tags,
                                          attachments: planned.attachments)
            let outcome = WorkerEvent.MessageOutcome(batchId: batchId, requestId: session.sendRequestId, muid: planned.muid)
            guard await deliver(message, outcome: outcome, through: sender) else { return }
            session.runner.markSent(planned.fileIds)
            if planned.caption != nil {
                sessions.withLock { sessions in sessions.update(batchId) { $0.captionSent = true } }
            }
        }
    }

    /// One message with the send-only retry policy. Returns whether it went out; the rest of the plan waits for a
    /// later drain or `send` control when it did not, keeping plan order.
    private func deliver(_ message: OutgoingMessage, outcome: WorkerEvent.MessageOutcome, through sender: any MessageSender) async -> Bool {
        let policy = configuration.retry
        var attempt = 1
        while true {
            do {
                let id = try await sender.send(message)
                publish(.messageSent(outcome, messageType: message.type, fileIds: message.attachments.map(\.fileId), responseId: id),
                        batchId: outcome.batchId)
                return true
            } catch {
                let failure = error as? MessageSendError ?? MessageSendError("\(error)", retryable: true)
                let delay = failure.isRetryable
                    ? random.withLock { policy.delay(afterAttempt: attempt, retryAfter: failure.retryAfter, using: &$0) }
                    : nil
                let wire = WireError(UploadError(UploadErrorCode(failure.code), failure.message, retryable: failure.isRetryable))
                publish(.messageFailed(outcome, error: wire, attempt: attempt, willRetry: delay != nil), batchId: outcome.batchId)
                dependencies.logger.warn("message send failed", ["batchId": outcome.batchId, "muid": outcome.muid,
                                                                  "attempt": String(attempt), "error": failure.description])
                guard let delay else { return false }
                do {
                    try await dependencies.clock.sleep(until: dependencies.clock.now() + delay)
                } catch {
                    return false
                }
                attempt += 1
            }
        }
    }
}
