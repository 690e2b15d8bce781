import Foundation
import HTTPTransport
import UploadEngine
import WireFormat

/// Uploads staged files to presigned URLs through the shared `HTTPClient`, and turns every failure into an
/// `UploadError` the engine can act on (see `classify` for the table).
///
/// The file is streamed from disk, or read from its open source, with `Content-Length` set; the target's headers
/// are sent as given, plus `Content-Type` from the transfer's mime type when the target does not set one. A target
/// whose `expiresAt` has passed is refused without sending anything, both before and after waiting for the client's
/// transfer cap. Error messages never contain the URL's query string.
public struct CurlUploader: Uploader {
    /// The shared client; its cap bounds concurrent uploads.
    public let client: HTTPClient
    /// Decides whether a target has expired and measures `Retry-After` dates.
    public let clock: any EngineClock
    /// No-progress limit for uploads (`upload.stallTimeout`); nil uses the client's.
    public let stallTimeout: Duration?

    /// An uploader over `client`.
    public init(client: HTTPClient, clock: any EngineClock = SystemClock(), stallTimeout: Duration? = nil) {
        self.client = client
        self.clock = clock
        self.stallTimeout = stallTimeout
    }

    /// Streams `transfer.staged` to `transfer.target`; progress is `(sent, total)` on the transfer thread.
    ///
    /// - Throws: `UploadError` for every failure, `CancellationError` when the task is cancelled.
    public func upload(
        _ transfer: UploadTransfer, progress: @escaping @Sendable (_ sent: Int64, _ total: Int64) -> Void
    ) async throws {
        let target = transfer.target
        try refuseIfExpired(target)
        var headers = target.headers
        let hasContentType = headers.contains { $0.name.equalsIgnoringASCIICase("Content-Type") }
        if !hasContentType, !transfer.mimeType.isEmpty {
            headers.append(HTTPHeader("Content-Type", transfer.mimeType))
        }
        if let trace = transfer.trace { headers += trace.httpHeaders }
        var request = HTTPRequest(
            method: target.method.isEmpty ? "PUT" : target.method.uppercased(), url: target.uploadURL,
            headers: headers, stallTimeout: stallTimeout)
        // Uploads to storage share the upload rate caps; "" is a tenant like any other for a transfer without one.
        request.bandwidthTenant = transfer.tenant ?? ""
        request.onOwnSlot = transfer.holdsSlot
        let response: HTTPResponse
        do {
            response = try await client.upload(
                transfer.staged.bytes, request: request,
                beforeStart: { try refuseIfExpired(target) }, progress: progress)
        } catch let error as HTTPTransportError {
            throw Self.classify(error)
        }
        guard response.isSuccess else {
            throw Self.classify(response, request: request, now: clock.now())
        }
    }

    private func refuseIfExpired(_ target: UploadTarget) throws(UploadError) {
        guard let expiresAt = target.expiresAt, clock.now() >= expiresAt else { return }
        throw UploadError(
            .presignedURLExpired,
            "the upload URL expired at \(expiresAt.formatted(.iso8601)) before the transfer started "
                + "(\(RedactedURL.redact(target.uploadURL)))",
            retryable: true)
    }
}
