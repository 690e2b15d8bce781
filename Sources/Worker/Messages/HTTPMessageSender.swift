import HTTPTransport

/// Sends messages to the chat API over HTTP (`messages.mode = http`), one attempt per call: the batch registry owns
/// retries, the same way for every sender.
public struct HTTPMessageSender: MessageSender {
    let client: MessageAPIClient

    public init(url: String, apiKey: String, client: HTTPClient) {
        self.client = MessageAPIClient(url: url, apiKey: apiKey, client: client)
    }

    public func send(_ message: OutgoingMessage) async throws -> String? {
        do {
            return try await client.send(message.request, onBehalfOf: message.sender, trace: message.trace).messageId
        } catch let error as HTTPTransportError {
            throw MessageSendError(error.message, retryable: error.isRetryable, retryAfter: error.retryAfter)
        }
    }
}
