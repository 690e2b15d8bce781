import Foundation
import UploadEngine

/// Sends media messages to a CometChat-compatible REST API (`messages.mode = http`,
/// `docs/wire-format.md#http-messages`).
///
/// `POST {url}` with headers `apikey` and `onBehalfOf: <sender>` and a `MediaMessageRequest` body. Only the send
/// is retried — never an upload — and only where a retry can help: transport failures, stalls, 5xx and 429, with
/// exponential backoff and full jitter, waiting at least what `Retry-After` asks (cut to `maxDelay`). Sleeping goes
/// through the `EngineClock`, so tests run the schedule on a manual clock. Resending is safe: the API deduplicates
/// on the message's `muid`.
public struct MessageAPIClient: Sendable {
    /// The API endpoint (`messages.url`).
    public let url: String
    /// The shared client.
    public let client: HTTPClient
    /// When to retry (`retry.*`).
    public let backoff: RetryBackoff
    /// What backoff sleeps on.
    public let clock: any EngineClock
    /// A limit on each send.
    public let timeout: Duration
    /// A credential: kept private so it cannot end up in a log by accident.
    private let apiKey: String
    private let jitter: @Sendable (Duration) -> Duration

    /// - Parameter jitter: picks the wait from its ceiling; `RetryBackoff.fullJitter` unless a test fixes it.
    public init(
        url: String, apiKey: String, client: HTTPClient, backoff: RetryBackoff = RetryBackoff(),
        clock: any EngineClock = SystemClock(), timeout: Duration = .seconds(30),
        jitter: @escaping @Sendable (Duration) -> Duration = RetryBackoff.fullJitter
    ) {
        self.url = url
        self.apiKey = apiKey
        self.client = client
        self.backoff = backoff
        self.clock = clock
        self.timeout = timeout
        self.jitter = jitter
    }

    /// Sends one message, retrying as described above.
    ///
    /// - Parameters:
    ///   - sender: the uid the message is sent on behalf of (`onBehalfOf`); nil sends no such header.
    ///   - onFailedAttempt: told about every failed send, with whether another follows.
    /// - Throws: the last attempt's `HTTPTransportError` (`.unexpectedStatus` with the status for an HTTP refusal),
    ///   `CancellationError` when the task is cancelled, also while backing off.
    public func send(
        _ message: MediaMessageRequest, onBehalfOf sender: String?,
        onFailedAttempt: (@Sendable (MessageSendFailure) -> Void)? = nil
    ) async throws -> MessageDelivery {
        var headers = [
            HTTPHeader("Content-Type", "application/json"), HTTPHeader("Accept", "application/json"),
            HTTPHeader("apikey", apiKey),
        ]
        if let sender { headers.append(HTTPHeader("onBehalfOf", sender)) }
        let request = HTTPRequest(method: "POST", url: url, headers: headers, body: try message.encoded(), timeout: timeout)
        var attempt = 0
        while true {
            attempt += 1
            let failure: HTTPTransportError
            do {
                let response = try await client.send(request)
                if response.isSuccess {
                    return MessageDelivery(
                        messageId: Self.messageId(in: response.body), attempts: attempt, status: response.status,
                        body: response.body)
                }
                failure = refusal(response, request: request)
            } catch let error as HTTPTransportError {
                failure = error
            }
            let willRetry = failure.isRetryable && attempt < backoff.maxAttempts
            onFailedAttempt?(MessageSendFailure(error: failure, attempt: attempt, willRetry: willRetry))
            guard willRetry else { throw failure }
            let asked = min(failure.retryAfter ?? .zero, backoff.maxDelay)
            let wait = max(jitter(backoff.ceiling(afterAttempt: attempt)), asked)
            try await clock.sleep(until: clock.now() + wait)
        }
    }

    private func refusal(_ response: HTTPResponse, request: HTTPRequest) -> HTTPTransportError {
        var message = "message API \(request.redactedURL) answered \(response.status)"
        if let detail = Self.errorDetail(in: response.body) { message += ": \(detail)" }
        return HTTPTransportError(
            .unexpectedStatus, message, status: response.status,
            retryAfter: RetryAfter.parse(response, now: clock.now()),
            retryable: response.status >= 500 || response.status == 429)
    }

    /// `data.id` of the answer, as text.
    static func messageId(in body: Data) -> String? {
        (try? JSONDecoder().decode(JSONValue.self, from: body))?["data"]?["id"]?.idString
    }

    /// `error.code: error.message` of a CometChat-style error answer, if that is what came back.
    static func errorDetail(in body: Data) -> String? {
        guard let error = (try? JSONDecoder().decode(JSONValue.self, from: body))?["error"] else { return nil }
        let parts = [error["code"], error["message"]].compactMap { value -> String? in
            if case .string(let text) = value { return text }
            return nil
        }
        return parts.isEmpty ? nil : parts.joined(separator: ": ")
    }
}
