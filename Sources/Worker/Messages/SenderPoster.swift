import UploadEngine

/// Posts the engine's planned messages through a `MessageSender`: builds the chat API's message from the plan, the
/// batch's context and its message options, and turns the sender's errors into the engine's.
struct SenderPoster: MessagePoster {
    let sender: any MessageSender

    func post(_ message: PlannedMessage, context: BatchContext, options: MessageOptions) async throws -> String? {
        var metadata = options.metadata
        metadata["batchId"] = .string(context.batchId)
        var outgoing = OutgoingMessage(muid: message.muid, type: message.type, receiver: context.receiver, sender: context.sender,
                                       parentId: context.parentMessageId, caption: message.caption, metadata: metadata,
                                       tags: options.tags, attachments: message.attachments)
        outgoing.trace = context.trace
        do {
            return try await sender.send(outgoing)
        } catch let failure as MessageSendError {
            throw UploadError(UploadErrorCode(failure.code), failure.message, retryable: failure.isRetryable,
                              retryAfter: failure.retryAfter)
        }
    }
}
