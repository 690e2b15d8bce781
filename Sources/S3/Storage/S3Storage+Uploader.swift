import Foundation
import HTTPTransport
import UploadEngine

extension S3Storage: Uploader {
    /// Uploads a staged file: in one `PUT` to the target up to the threshold, in parts above it. The parts' upload
    /// is aborted when the upload fails or is cancelled: nobody records it to resume it.
    ///
    /// A target this bucket did not sign (its key cannot be known) always goes in one `PUT`.
    /// - Throws: `UploadError` classified by the storage table; `CancellationError` when the task is cancelled.
    public func upload(
        _ transfer: UploadTransfer, progress: @escaping @Sendable (_ sent: Int64, _ total: Int64) -> Void
    ) async throws {
        try await upload(transfer, progress: progress, recording: nil)
    }

    /// Uploads a staged file, resuming `transfer.multipart` when it can (see `S3MultipartTransfer`) and reporting
    /// the multipart upload to `stored`, which then owns it: it is not aborted here, whatever happens.
    public func upload(
        _ transfer: UploadTransfer, progress: @escaping @Sendable (_ sent: Int64, _ total: Int64) -> Void,
        stored: @escaping @Sendable (MultipartUpload) -> Void
    ) async throws {
        try await upload(transfer, progress: progress, recording: stored)
    }

    /// Aborts a file's multipart upload, retrying what a retry can help; one storage no longer has is done.
    public func abandon(_ upload: MultipartUpload) async {
        await abort(upload)
    }

    private func upload(
        _ transfer: UploadTransfer, progress: @escaping @Sendable (_ sent: Int64, _ total: Int64) -> Void,
        recording stored: (@Sendable (MultipartUpload) -> Void)?
    ) async throws {
        let plan: S3MultipartPlan?
        do {
            plan = try S3MultipartPlan.plan(
                size: transfer.staged.size, threshold: configuration.multipartThreshold,
                preferredPartSize: configuration.partSize)
        } catch let error as S3Error {
            throw error.uploadError()
        }
        guard let plan, let key = presigner.key(ofURL: transfer.target.uploadURL) else {
            // An upload in parts an earlier attempt started is not needed any more.
            if let previous = transfer.multipart { await abort(previous) }
            try await singlePut.upload(transfer, progress: progress)
            return
        }
        let multipart = S3MultipartTransfer(
            storage: self, key: key, plan: plan, bytes: transfer.staged.bytes, sha256: transfer.staged.sha256,
            sourceVersion: transfer.staged.sourceVersion, mimeType: transfer.mimeType,
            progress: S3MultipartProgress(total: plan.objectSize, report: progress), trace: transfer.trace,
            tenant: transfer.tenant, holdsSlot: transfer.holdsSlot, previous: transfer.multipart, stored: stored)
        try await multipart.run()
    }
}
