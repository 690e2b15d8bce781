import Foundation
import HTTPTransport
import UploadEngine
import WireFormat

/// One multipart upload of a staged file: CreateMultipartUpload (or an earlier attempt's upload, resumed), the
/// parts storage does not have yet, CompleteMultipartUpload.
///
/// Parts go up `partConcurrency` at a time, each presigned as it starts and streaming its byte range of the file
/// (with its SHA-256 when `partChecksums` is on). A part that fails in a way a retry can help is sent again alone,
/// up to `partRetry`'s attempts; creation and completion are retried the same way, and a completion answered 200
/// with an `<Error>` inside is a failure.
///
/// With a `stored` callback the upload is durable state of the file (DESIGN §12): it is reported when created and
/// as each part is stored, and it is never aborted here — failed or cancelled, it waits for the file's next attempt,
/// and the batch says when to give it up. The next attempt resumes it when the bytes have the digest it was started
/// for, and the part size is the same; otherwise it is aborted and a new one started. An upload storage no longer
/// has (aborted by a sweep or a lifecycle rule) is started again from part 1. Without `stored`, nobody could resume
/// the upload, so it is aborted when it fails or its task is cancelled.
struct S3MultipartTransfer: Sendable {
    /// The storage the upload goes through.
    let storage: S3Storage
    /// The object's key.
    let key: String
    /// How the file is cut.
    let plan: S3MultipartPlan
    /// The staged file's bytes.
    let bytes: StagedBytes
    /// Hex SHA-256 of the whole staged file; empty when unknown (such an upload cannot be resumed).
    let sha256: String
    /// The source's version as staging told it (``StagedFile/sourceVersion``), recorded with the upload.
    var sourceVersion: String?
    /// The object's content type.
    let mimeType: String
    /// Where part progress is summed.
    let progress: S3MultipartProgress
    /// Sent with every part.
    var trace: TraceContext?
    /// Whose upload rate cap the parts count against.
    var tenant: String?
    /// The file holds a transfer slot of the worker's (``UploadTransfer/holdsSlot``): one part at a time runs on it,
    /// the others wait for the HTTP client's cap, so a file whose slot was granted always has a part moving.
    var holdsSlot = false
    /// The upload an earlier attempt started.
    var previous: MultipartUpload?
    /// Told of the upload as it is created and as parts are stored; nil: an upload nobody records.
    var stored: (@Sendable (MultipartUpload) -> Void)?

    private var configuration: S3Storage.Configuration { storage.configuration }
    private var presigner: S3Presigner { storage.presigner }

    /// Storage no longer has the upload: its parts cannot be completed.
    private struct UploadGone: Error {}

    /// Runs the upload to its end, repeating its progress while it waits on storage (``reportingWaits(_:)``).
    /// - Throws: `UploadError`, or `CancellationError`; an upload nobody records has been aborted either way.
    func run() async throws {
        try await reportingWaits { try await runSteps() }
    }

    private func runSteps() async throws {
        if let previous {
            if let resumable = resumable(previous) {
                do {
                    // Aborted behind the attempt's back (not stored, or gone meanwhile): a new upload below.
                    if try await isStored(resumable) {
                        // Recorded at once: a crash before the next part is stored would otherwise cost the next
                        // owner a hash of the whole file.
                        if resumable.sourceVersion != previous.sourceVersion { stored?(resumable) }
                        try await finish(resumable)
                        return
                    }
                } catch is UploadGone {}
            } else {
                await storage.abort(previous)
            }
        }
        let upload = try await create()
        stored?(upload)
        if Task.isCancelled {
            // Cancelled while storage created it: whoever called the attempt off (a remove, a clear, a handover) may
            // not have recorded the upload, and one nobody records is an orphan. No part is stored yet, so aborting
            // costs nothing; a new owner that did record it finds it gone and starts a new one.
            await storage.abort(upload)
            throw CancellationError()
        }
        do {
            try await finish(upload)
        } catch is UploadGone {
            throw UploadError(.s3UploadFailed, "storage no longer has multipart upload \(upload.uploadId) of \(key)", retryable: true)
        } catch {
            if stored == nil { await storage.abort(upload) }
            throw error
        }
    }

    /// The earlier upload, when these bytes can finish it: same key, same part size, same whole-file digest, and
    /// parts that fit the plan. It records the source's version as staged now: the same bytes, perhaps touched since.
    private func resumable(_ upload: MultipartUpload) -> MultipartUpload? {
        guard upload.key == key, upload.partSize == plan.partSize, !sha256.isEmpty, upload.sha256 == sha256,
            upload.parts.allSatisfy({ plan.partNumbers.contains($0.number) })
        else { return nil }
        var upload = upload
        upload.sourceVersion = MultipartUpload.keepableVersion(sourceVersion)
        return upload
    }

    /// Whether storage still has the upload: asked once before resuming it (ListParts), since some stores answer a
    /// part sent to an upload that is gone with a 500 that looks worth retrying rather than with `NoSuchUpload`.
    private func isStored(_ upload: MultipartUpload) async throws -> Bool {
        try await storage.withAttempts {
            let signed = presigner.listPartsRequest(key: key, uploadId: upload.uploadId, maxParts: 1)
            return try await storage.exchange(signed, timeout: configuration.requestTimeout) { response in
                if response.isSuccess { return true }
                if Self.saysUploadGone(response) || response.status == 404 { return false }
                throw S3Storage.refusal(response, to: "ListParts")
            }
        }
    }

    private func create() async throws -> MultipartUpload {
        let uploadId = try await storage.withAttempts {
            let signed = presigner.createMultipartUploadRequest(
                key: key, mimeType: mimeType, sha256Checksums: configuration.partChecksums)
            return try await storage.exchange(signed, timeout: configuration.requestTimeout) { response in
                try S3InitiateMultipartUploadResult(status: response.status, body: response.body).uploadId
            }
        }
        return MultipartUpload(key: key, uploadId: uploadId, partSize: plan.partSize, sha256: sha256,
                               sourceVersion: MultipartUpload.keepableVersion(sourceVersion))
    }

    /// Stores the parts `upload` lacks and completes it. Progress starts at the bytes already stored.
    private func finish(_ upload: MultipartUpload) async throws {
        var upload = upload
        var have: [Int: MultipartUpload.Part] = [:]
        for part in upload.parts { have[part.number] = part }
        upload.parts = plan.partNumbers.compactMap { have[$0] }
        progress.seed(upload.parts.map { let range = plan.byteRange(ofPart: $0.number); return range.upperBound - range.lowerBound })
        let missing = plan.partNumbers.filter { have[$0] == nil }
        let parts = try await uploadParts(missing, of: upload)
        try await complete(upload.uploadId, parts: parts)
    }

    /// The missing parts, at most `partConcurrency` at once, in lanes: the first lane runs on the file's own slot
    /// when it holds one, and a lane's next part starts when its last one ended. The first part that fails for good
    /// cancels the others. Each stored part is reported with all those before it.
    private func uploadParts(_ numbers: [Int], of upload: MultipartUpload) async throws -> [MultipartUpload.Part] {
        try await withThrowingTaskGroup(of: (part: MultipartUpload.Part, lane: Int).self) { group in
            var pending = numbers.makeIterator()
            let holdsSlot = self.holdsSlot
            func start(_ number: Int, lane: Int) {
                group.addTask {
                    (try await uploadPart(number, uploadId: upload.uploadId, onOwnSlot: holdsSlot && lane == 0), lane)
                }
            }
            for lane in 0..<configuration.partConcurrency {
                guard let number = pending.next() else { break }
                start(number, lane: lane)
            }
            var recorded = upload
            while let (part, lane) = try await group.next() {
                recorded.parts.append(part)
                stored?(recorded)
                if let number = pending.next() { start(number, lane: lane) }
            }
            return recorded.parts.sorted { $0.number < $1.number }
        }
    }

    private func uploadPart(_ number: Int, uploadId: String, onOwnSlot: Bool) async throws -> MultipartUpload.Part {
        let range = plan.byteRange(ofPart: number)
        // At work while hashing and while an attempt is in flight; its backoff between attempts is a wait.
        let digest = configuration.partChecksums
            ? try await progress.working { try await S3PartDigest.sha256Hex(of: bytes, range: range) } : ""
        return try await storage.withAttempts {
            try await progress.working {
                try await attemptPart(number, range: range, digest: digest, uploadId: uploadId, onOwnSlot: onOwnSlot)
            }
        }
    }

    /// One attempt at storing part `number`.
    private func attemptPart(_ number: Int, range: Range<Int64>, digest: String, uploadId: String, onOwnSlot: Bool)
        async throws -> MultipartUpload.Part {
        let signed: SigV4SignedRequest
        do {
            // Signed now, as the part starts: a long upload never meets the expiry of URLs signed at its start.
            signed = try presigner.presignedUploadPart(
                key: key, uploadId: uploadId, partNumber: number, sha256Base64: S3Checksum.base64(sha256Hex: digest))
        } catch let error as S3Error {
            throw error.uploadError()
        }
        var request = HTTPRequest(
            method: signed.method, url: signed.url, headers: signed.headers + (trace?.httpHeaders ?? []),
            stallTimeout: configuration.stallTimeout)
        request.bandwidthTenant = tenant ?? ""
        request.onOwnSlot = onOwnSlot
        let response: HTTPResponse
        do {
            response = try await storage.transport.upload(bytes, range: range, request: request) {
                sent, _ in progress.record(part: number, sent: sent)
            }
        } catch let error as HTTPTransportError {
            throw CurlUploader.classify(error)
        }
        guard response.isSuccess else {
            if Self.saysUploadGone(response) { throw UploadGone() }
            throw CurlUploader.classify(response, request: request, now: storage.clock.now())
        }
        guard let etag = response.header("ETag"), !etag.isEmpty else {
            throw UploadError(
                .s3UploadFailed, "storage accepted part \(number) without an ETag (\(request.redactedURL))",
                retryable: true)
        }
        guard MultipartUpload.isKeepable(etag, maxBytes: MultipartUpload.maxETagBytes) else {
            throw UploadError(
                .s3UploadFailed, "storage answered part \(number) with an ETag of \(etag.utf8.count) bytes or with control "
                    + "characters; at most \(MultipartUpload.maxETagBytes) printable bytes are kept", retryable: false)
        }
        return MultipartUpload.Part(number: number, etag: etag, sha256: digest)
    }

    private func complete(_ uploadId: String, parts: [MultipartUpload.Part]) async throws {
        let completed = parts.map {
            S3CompletedPart(partNumber: $0.number, etag: $0.etag, checksumSHA256: S3Checksum.base64(sha256Hex: $0.sha256))
        }
        // No overall limit: S3 may take a while to assemble a large object, writing spaces meanwhile, which the
        // request's stall timeout sees as progress; the engine's hears of it from `reportingWaits`.
        try await storage.withAttempts {
            let signed = presigner.completeMultipartUploadRequest(key: key, uploadId: uploadId, parts: completed)
            try await storage.exchange(signed, timeout: nil) { response in
                if Self.saysUploadGone(response) { throw UploadGone() }
                _ = try S3CompleteMultipartUploadResult(status: response.status, body: response.body)
            }
        }
    }

    /// Runs `body`, the upload, repeating its progress (`WaitingReports`) whenever no part is at work
    /// (``S3MultipartProgress/waiting()``): while storage creates the upload, lists its parts or assembles it
    /// (CompleteMultipartUpload can take minutes), and while a part waits out its backoff or `Retry-After`. The engine's
    /// `upload.stallTimeout` counts only while bytes could move and none do (DESIGN §4), so it must not run out on
    /// those waits. A part at work reports for itself, so one that hangs — its request, or a read of its source that
    /// holds up the transfer thread — is never covered. Only where a stall timeout of the storage's own watches each
    /// request (`Configuration.stallTimeout`, set by the worker): a request that stops moving then fails itself, and
    /// without one the engine's clock stays the only watch.
    private func reportingWaits(_ body: @escaping @Sendable () async throws -> Void) async throws {
        guard let stallTimeout = configuration.stallTimeout else { return try await body() }
        let interval = WaitingReports.interval(for: stallTimeout, atMost: Self.longestQuiet)
        let clock = storage.clock, progress = progress
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                while true {
                    try await clock.sleep(until: clock.now() + interval)
                    progress.waiting()
                }
            }
            group.addTask(operation: body)
            defer { group.cancelAll() }
            // The beat only ends by cancellation: the first task to end is the body, or the cancelled caller.
            try await group.next()
        }
    }

    /// The longest an upload waiting on storage goes without a progress report.
    static let longestQuiet: Duration = .seconds(5)

    /// Whether storage says the upload, or a part it was to have, is not there: `NoSuchUpload`, or `InvalidPart`
    /// for a recorded part it no longer holds.
    private static func saysUploadGone(_ response: HTTPResponse) -> Bool {
        guard let code = S3ErrorResponse(status: response.status, body: response.body)?.code else { return false }
        return code == "NoSuchUpload" || code == "InvalidPart"
    }
}
