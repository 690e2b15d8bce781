import Foundation
import HTTPTransport
import UploadEngine
import WireFormat

/// Sends media messages to a CometChat-compatible REST API (`messages.mode = http`,
/// `docs/wire-format.md#http-messages`).
///
/// `POST {url}` with headers `apikey` and `onBehalfOf: <sender>` and a `MediaMessageRequest` body. Each call makes
/// exactly one attempt: retries (with backoff, `Retry-After`, and per-attempt `message.failed` events) belong to the
/// worker's batch registry, which treats every sender alike. The error says whether a retry can help. Resending is
/// safe: the API deduplicates on the message's `muid`.
public struct MessageAPIClient: Sendable {
    /// The API endpoint (`messages.url`).
    public let url: String
    /// The shared client.
    public let client: HTTPClient
    /// Measures `Retry-After` dates.
    public let clock: any EngineClock
    /// A limit on each send.
    public let timeout: Duration
    /// A credential: kept private so it cannot end up in a log by accident.
    private let apiKey: String

    /// A client for the API at `url`, authenticating with `apiKey`.
    public init(
        url: String, apiKey: String, client: HTTPClient, clock: any EngineClock = SystemClock(),
        timeout: Duration = .seconds(30)
    ) {
        self.url = url
        self.apiKey = apiKey
        self.client = client
        self.clock = clock
        self.timeout = timeout
    }

    /// Sends one message, once.
    ///
    /// - Parameter sender: the uid the message is sent on behalf of (`onBehalfOf`); nil sends no such header.
    /// - Throws: `HTTPTransportError`: `.unexpectedStatus` with `status` for an HTTP refusal (retryable for 5xx,
    ///   408 and 429, with `retryAfter` from `Retry-After`), transport errors as the client reports them;
    ///   `CancellationError` when the task is cancelled.
    /// - Parameter trace: the trace context of the job the message is sent for, sent as `traceparent` / `tracestate`.
    public func send(_ message: MediaMessageRequest, onBehalfOf sender: String?, trace: TraceContext? = nil) async throws -> MessageDelivery {
        var headers = [
            HTTPHeader("Content-Type", "application/json"), HTTPHeader("Accept", "application/json"),
            HTTPHeader("apikey", apiKey),
        ]
        if let sender { headers.append(HTTPHeader("onBehalfOf", sender)) }
        if let trace { headers += trace.httpHeaders }
        let request = HTTPRequest(method: "POST", url: url, headers: headers, body: message.encoded(), timeout: timeout)
        let response = try await client.send(request)
        guard response.isSuccess else {
            throw refusal(response, request: request)
        }
        return MessageDelivery(messageId: Self.messageId(in: response.body), status: response.status, body: response.body)
    }

    private func refusal(_ response: HTTPResponse, request: HTTPRequest) -> HTTPTransportError {
        var message = "message API \(request.redactedURL) answered \(response.status)"
        if let detail = Self.errorDetail(in: response.body) { message += ": \(detail)" }
        return HTTPTransportError(
            .unexpectedStatus, message, status: response.status,
            retryAfter: RetryAfter.parse(response, now: clock.now()),
            retryable: response.isRetryable)
    }

    /// `data.id` of the answer, as text.
    static func messageId(in body: Data) -> String? {
        (try? JSONParser.parse(body))?["data"]?["id"]?.idString
    }

    /// `error.code: error.message` of a CometChat-style error answer, if that is what came back.
    static func errorDetail(in body: Data) -> String? {
        guard let error = (try? JSONParser.parse(body))?["error"] else { return nil }
        let parts = [error["code"], error["message"]].compactMap { $0?.stringValue }
        return parts.isEmpty ? nil : parts.joined(separator: ": ")
    }
}
