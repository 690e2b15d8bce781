import Foundation
import HTTPTransport
import UploadEngine
import WireFormat

/// Asks `sources.resignUrl` for a fresh URL when a source URL was refused as expired or forbidden.
///
/// `POST {"url", "batchId", "fileId"}` → `{"url"}`. The endpoint is the operator's own service: it is called
/// without the address policy that guards source downloads (the URL it returns is guarded like any source).
struct SourceResigner: Sendable {
    /// The endpoint.
    let endpoint: String
    /// The worker's shared client.
    let client: HTTPClient

    /// The limit on one re-sign exchange.
    static let timeout: Duration = .seconds(30)

    /// A re-signed URL for `url`.
    ///
    /// - Throws: `ERR_SOURCE_FETCH_FAILED` (retryable) when the endpoint cannot be reached or answers 5xx, 408
    ///   or 429; `ERR_SOURCE_UNRESOLVABLE` when it answers anything else but a JSON object with a string `url`.
    func resign(_ url: String, batchId: String, fileId: String) async throws -> String {
        var json = JSONWriter()
        json.beginObject()
        json.field("batchId", batchId)
        json.field("fileId", fileId)
        json.field("url", url)
        json.endObject()
        let body = json.data()
        let request = HTTPRequest(
            method: "POST", url: endpoint,
            headers: [HTTPHeader("Content-Type", "application/json"), HTTPHeader("Accept", "application/json")],
            body: body, timeout: Self.timeout)
        let response: HTTPResponse
        do {
            response = try await client.send(request)
        } catch let error as HTTPTransportError {
            throw UploadError(.sourceFetchFailed, "re-signing the source failed: \(error.message)", retryable: true)
        }
        switch response.status {
        case 200..<300:
            guard let answer = try? JSONParser.parse(response.body), let fresh = answer["url"]?.stringValue, !fresh.isEmpty
            else {
                throw UploadError(.sourceUnresolvable, "the re-sign endpoint answered without a url", retryable: false)
            }
            return fresh
        case _ where response.isRetryable:
            throw UploadError(.sourceFetchFailed, "the re-sign endpoint answered HTTP \(response.status)", retryable: true,
                              retryAfter: RetryAfter.parse(response, now: Date()))
        default:
            throw UploadError(.sourceUnresolvable, "the re-sign endpoint answered HTTP \(response.status)", retryable: false)
        }
    }
}
