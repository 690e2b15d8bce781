import Foundation
import HTTPTransport
import UploadEngine
import WireFormat

/// Asks the backend's presign endpoint (`presign.mode = endpoint`, `docs/wire-format.md#presign-endpoint`) for
/// upload targets, one call per group of files.
///
/// A per-file `error` becomes `.refused` with the service's code (fallback `ERR_PRESIGNED_URL_FAILED`), never
/// retryable. A transport failure, a non-2xx answer or a body that cannot be read throws `HTTPTransportError`,
/// after which the engine presigns file by file. Entries for files that were not asked about are ignored.
public struct PresignEndpointClient: Presigner {
    /// The endpoint; may carry a token in its query, which is never logged.
    public let url: String
    /// The shared client.
    public let client: HTTPClient
    /// Extra headers for every call (for instance the backend's authorization).
    public let headers: [HTTPHeader]
    /// A limit on each call.
    public let timeout: Duration

    /// A presigner calling `url`.
    public init(url: String, client: HTTPClient, headers: [HTTPHeader] = [], timeout: Duration = .seconds(30)) {
        self.url = url
        self.client = client
        self.headers = headers
        self.timeout = timeout
    }

    /// Presigns `files` in one call; see the type's notes for what throws and what is refused.
    public func presign(_ files: [PresignFile], in context: BatchContext) async throws -> [String: PresignOutcome] {
        let body = PresignEndpointRequest(files: files, context: context).body
        let request = HTTPRequest(
            method: "POST", url: url,
            headers: [HTTPHeader("Content-Type", "application/json"), HTTPHeader("Accept", "application/json")] + headers
                + (context.trace?.httpHeaders ?? []),
            body: body, timeout: timeout)
        let response = try await client.send(request)
        guard response.isSuccess else {
            throw HTTPTransportError(
                .unexpectedStatus, "presign endpoint \(request.redactedURL) answered \(response.status)",
                status: response.status, retryAfter: RetryAfter.parse(response, now: Date()),
                retryable: response.isRetryable)
        }
        let answer: PresignEndpointAnswer
        do {
            answer = try PresignEndpointAnswer(parsing: response.body)
        } catch {
            throw HTTPTransportError(
                .malformedResponse,
                "presign endpoint \(request.redactedURL) sent an answer that is not §2.3 JSON: \(error)",
                status: response.status, retryable: true)
        }
        let asked = Set(files.map(\.fileId))
        var outcomes: [String: PresignOutcome] = [:]
        for entry in answer.files where asked.contains(entry.fileId) {
            outcomes[entry.fileId] = entry.outcome
        }
        return outcomes
    }
}
