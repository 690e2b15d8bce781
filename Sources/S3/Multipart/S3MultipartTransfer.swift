import Foundation
import HTTPTransport
import UploadEngine

/// One multipart upload of a staged file: CreateMultipartUpload, the parts, CompleteMultipartUpload.
///
/// Parts go up `partConcurrency` at a time, each a fresh presigned UploadPart streaming its byte range of the file
/// (with its SHA-256 when `partChecksums` is on). A part that fails in a way a retry can help is sent again alone,
/// up to `partRetry`'s attempts; creation and completion are retried the same way, and a completion answered 200
/// with an `<Error>` inside is a failure. When the upload fails for good or its task is cancelled, it is aborted
/// (AbortMultipartUpload, awaited but not cancellable, best effort) so storage frees the parts; parts an abort
/// cannot reach are left to the bucket's lifecycle rule for incomplete uploads.
struct S3MultipartTransfer: Sendable {
    /// The storage the upload goes through.
    let storage: S3Storage
    /// The object's key.
    let key: String
    /// How the file is cut.
    let plan: S3MultipartPlan
    /// The staged file's bytes.
    let bytes: StagedBytes
    /// The object's content type.
    let mimeType: String
    /// Where part progress is summed.
    let progress: S3MultipartProgress
    /// Sent with every part.
    var trace: TraceContext?
    /// Whose upload rate cap the parts count against.
    var tenant: String?

    private var configuration: S3Storage.Configuration { storage.configuration }
    private var presigner: S3Presigner { storage.presigner }

    /// Runs the upload to its end.
    /// - Throws: `UploadError`, or `CancellationError`; either way the upload has been aborted.
    func run() async throws {
        let uploadId = try await create()
        do {
            let parts = try await uploadParts(uploadId: uploadId)
            try await complete(uploadId: uploadId, parts: parts)
        } catch {
            await abort(uploadId: uploadId)
            throw error
        }
    }

    private func create() async throws -> String {
        try await storage.withAttempts {
            let signed = presigner.createMultipartUploadRequest(
                key: key, mimeType: mimeType, sha256Checksums: configuration.partChecksums)
            return try await storage.exchange(signed, timeout: configuration.requestTimeout) { response in
                try S3InitiateMultipartUploadResult(status: response.status, body: response.body).uploadId
            }
        }
    }

    /// Every part, at most `partConcurrency` at once; the first part that fails for good cancels the others.
    private func uploadParts(uploadId: String) async throws -> [S3CompletedPart] {
        try await withThrowingTaskGroup(of: S3CompletedPart.self) { group in
            var pending = plan.partNumbers.makeIterator()
            for _ in 0..<configuration.partConcurrency {
                guard let number = pending.next() else { break }
                group.addTask { try await uploadPart(number, uploadId: uploadId) }
            }
            var completed: [S3CompletedPart] = []
            while let part = try await group.next() {
                completed.append(part)
                if let number = pending.next() {
                    group.addTask { try await uploadPart(number, uploadId: uploadId) }
                }
            }
            return completed
        }
    }

    private func uploadPart(_ number: Int, uploadId: String) async throws -> S3CompletedPart {
        let range = plan.byteRange(ofPart: number)
        let checksum =
            configuration.partChecksums ? try await S3PartDigest.sha256Base64(of: bytes, range: range) : nil
        return try await storage.withAttempts {
            let signed: SigV4SignedRequest
            do {
                signed = try presigner.presignedUploadPart(
                    key: key, uploadId: uploadId, partNumber: number, sha256Base64: checksum)
            } catch let error as S3Error {
                throw error.uploadError()
            }
            var request = HTTPRequest(
                method: signed.method, url: signed.url, headers: signed.headers + (trace?.httpHeaders ?? []),
                stallTimeout: configuration.stallTimeout)
            request.bandwidthTenant = tenant ?? ""
            let response: HTTPResponse
            do {
                response = try await storage.transport.upload(bytes, range: range, request: request) {
                    sent, _ in progress.record(part: number, sent: sent)
                }
            } catch let error as HTTPTransportError {
                throw CurlUploader.classify(error)
            }
            guard response.isSuccess else {
                throw CurlUploader.classify(response, request: request, now: storage.clock.now())
            }
            guard let etag = response.header("ETag"), !etag.isEmpty else {
                throw UploadError(
                    .s3UploadFailed, "storage accepted part \(number) without an ETag (\(request.redactedURL))",
                    retryable: true)
            }
            return S3CompletedPart(partNumber: number, etag: etag, checksumSHA256: checksum)
        }
    }

    private func complete(uploadId: String, parts: [S3CompletedPart]) async throws {
        // No overall limit: S3 may take a while to assemble a large object, writing spaces meanwhile, which the
        // stall timeout sees as progress.
        try await storage.withAttempts {
            let signed = presigner.completeMultipartUploadRequest(key: key, uploadId: uploadId, parts: parts)
            try await storage.exchange(signed, timeout: nil) { response in
                _ = try S3CompleteMultipartUploadResult(status: response.status, body: response.body)
            }
        }
    }

    /// Aborts in a task of its own, so a cancelled upload still frees its parts.
    private func abort(uploadId: String) async {
        let signed = presigner.abortMultipartUploadRequest(key: key, uploadId: uploadId)
        let request = HTTPRequest(
            method: signed.method, url: signed.url, headers: signed.headers, timeout: configuration.requestTimeout)
        let transport = storage.transport
        await Task { _ = try? await transport.send(request) }.value
    }
}
