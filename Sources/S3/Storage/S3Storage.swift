import Foundation
import HTTPTransport
import UploadEngine

/// Object storage in an S3 bucket that Attache owns (`presign.mode = s3`): presigns, uploads and deletes.
///
/// Use one value as both the engine's `Presigner` and its `Uploader`. Presigning is `S3Presigner`'s. Uploads up to
/// `Configuration.multipartThreshold` go in one presigned `PUT` through `CurlUploader`; larger ones in parts
/// (see `S3MultipartTransfer`). Removing an uploaded file deletes its object with a presigned `DELETE`.
/// Every HTTP call goes through the shared `HTTPClient`, so parts count against its transfer cap like any upload.
public struct S3Storage: Sendable {
    /// Signs every request.
    public let presigner: S3Presigner
    /// Threshold, part size and concurrency, retries, timeouts.
    public let configuration: Configuration
    /// Where requests go.
    let transport: any StorageTransport
    /// Uploads at or below the threshold.
    let singlePut: CurlUploader
    /// Backoff between attempts, and `Retry-After` dates.
    let clock: any EngineClock

    /// Storage through `client`, signing with `presigner`.
    public init(
        presigner: S3Presigner, client: HTTPClient, configuration: Configuration = Configuration(),
        clock: any EngineClock = SystemClock()
    ) {
        self.init(
            presigner: presigner, transport: client,
            singlePut: CurlUploader(client: client, clock: clock, stallTimeout: configuration.stallTimeout),
            configuration: configuration, clock: clock)
    }

    /// Storage over any transport (tests interpose faults here).
    init(
        presigner: S3Presigner, transport: any StorageTransport, singlePut: CurlUploader, configuration: Configuration,
        clock: any EngineClock
    ) {
        self.presigner = presigner
        self.transport = transport
        self.singlePut = singlePut
        self.configuration = configuration.validated()
        self.clock = clock
    }

    /// Sends a header-signed request and reads its answer with `read`.
    ///
    /// - Throws: `UploadError` by the storage table: transport failures as `CurlUploader.classify` says, S3's
    ///   error answers (a 200 carrying an `<Error>` included) by their status and code.
    func exchange<Answer>(
        _ signed: SigV4SignedRequest, timeout: Duration?, read: (HTTPResponse) throws -> Answer
    ) async throws -> Answer {
        let request = HTTPRequest(
            method: signed.method, url: signed.url, headers: signed.headers, body: signed.body.isEmpty ? nil : signed.body,
            timeout: timeout, stallTimeout: configuration.stallTimeout)
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch let error as HTTPTransportError {
            throw CurlUploader.classify(error)
        }
        do {
            return try read(response)
        } catch let error as S3Error {
            throw error.uploadError(retryAfter: RetryAfter.parse(response, now: clock.now()))
        }
    }

    /// Aborts a multipart upload (AbortMultipartUpload) in a task of its own, so a cancelled caller still frees the
    /// parts. Best effort: a failure is left to `attache storage sweep` and the bucket's lifecycle rule.
    func abort(_ upload: MultipartUpload) async {
        let storage = self
        await Task { try? await storage.abortUpload(key: upload.key, uploadId: upload.uploadId) }.value
    }

    /// Aborts the multipart upload `uploadId` of `key`, with as many attempts as `Configuration.partRetry` allows. An
    /// upload storage no longer has (404) counts as aborted.
    /// - Throws: `UploadError` by the storage table; `CancellationError`.
    public func abortUpload(key: String, uploadId: String) async throws {
        try await withAttempts {
            let signed = presigner.abortMultipartUploadRequest(key: key, uploadId: uploadId)
            try await exchange(signed, timeout: configuration.requestTimeout) { response in
                guard response.isSuccess || response.status == 404 else {
                    throw Self.refusal(response, to: "AbortMultipartUpload")
                }
            }
        }
    }

    /// Every incomplete multipart upload under the key prefix (`presign.s3.prefix`), page by page.
    /// - Throws: `UploadError` by the storage table; `CancellationError`.
    public func incompleteUploads() async throws -> [S3IncompleteUpload] {
        let prefix = presigner.configuration.keyPrefix.split(separator: "/").map { $0 + "/" }.joined()
        var uploads: [S3IncompleteUpload] = []
        var markers: (key: String, uploadId: String)?
        repeat {
            let page = try await withAttempts {
                let signed = presigner.listMultipartUploadsRequest(
                    prefix: prefix, keyMarker: markers?.key, uploadIdMarker: markers?.uploadId)
                return try await exchange(signed, timeout: configuration.requestTimeout) { response in
                    try S3ListMultipartUploadsResult(status: response.status, body: response.body)
                }
            }
            uploads += page.uploads
            markers = page.nextKeyMarker.map { ($0, page.nextUploadIdMarker) }
        } while markers != nil
        return uploads
    }

    /// The error for an answer that is not a success: S3's own `<Error>`, or one made from the status.
    static func refusal(_ response: HTTPResponse, to operation: String) -> S3Error {
        if let answer = S3ErrorResponse(status: response.status, body: response.body) { return S3Error(answer) }
        return S3Error(.serviceError, "\(operation) answered \(response.status)",
                       retryable: CurlUploader.isRetryable(status: response.status, storageCode: ""))
    }

    /// Runs `operation` until it succeeds, fails for good, or `Configuration.partRetry` runs out of attempts,
    /// sleeping the policy's backoff (at least `Retry-After`) between attempts.
    /// - Throws: the last `UploadError`; `CancellationError` as soon as the task is cancelled.
    func withAttempts<Result: Sendable>(_ operation: () async throws -> Result) async throws -> Result {
        try await configuration.partRetry.run(on: clock, judge: { error in
            guard let error = error as? UploadError else { return .init(retryable: false) }
            return .init(retryable: error.isRetryable, retryAfter: error.retryAfter)
        }) { _ in try await operation() }
    }
}
