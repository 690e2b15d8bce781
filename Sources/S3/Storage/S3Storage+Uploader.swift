import Foundation
import UploadEngine

extension S3Storage: Uploader {
    /// Uploads a staged file: in one `PUT` to the target up to the threshold, in parts above it.
    ///
    /// A target this bucket did not sign (its key cannot be known) always goes in one `PUT`.
    /// - Throws: `UploadError` classified by the storage table; `CancellationError` when the task is cancelled
    ///   (a multipart upload is aborted first).
    public func upload(
        _ transfer: UploadTransfer, progress: @escaping @Sendable (_ sent: Int64, _ total: Int64) -> Void
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
            try await singlePut.upload(transfer, progress: progress)
            return
        }
        let multipart = S3MultipartTransfer(
            storage: self, key: key, plan: plan, bytes: transfer.staged.bytes, mimeType: transfer.mimeType,
            progress: S3MultipartProgress(total: plan.objectSize, report: progress), trace: transfer.trace,
            tenant: transfer.tenant)
        try await multipart.run()
    }
}
