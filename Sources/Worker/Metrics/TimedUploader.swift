import Foundation
import UploadEngine

/// Times successful uploads into `attache_upload_duration_seconds`, and counts their bytes by tenant.
struct TimedUploader: Uploader {
    let inner: any Uploader
    let metrics: WorkerMetrics

    func upload(_ transfer: UploadTransfer, progress: @escaping @Sendable (Int64, Int64) -> Void) async throws {
        try await timed(transfer) { try await inner.upload(transfer, progress: progress) }
    }

    func upload(_ transfer: UploadTransfer, progress: @escaping @Sendable (Int64, Int64) -> Void,
                stored: @escaping @Sendable (MultipartUpload) -> Void) async throws {
        try await timed(transfer) { try await inner.upload(transfer, progress: progress, stored: stored) }
    }

    func abandon(_ upload: MultipartUpload) async {
        await inner.abandon(upload)
    }

    private func timed(_ transfer: UploadTransfer, _ upload: () async throws -> Void) async throws {
        let started = ContinuousClock.now
        try await upload()
        metrics.registry.observe(WorkerMetrics.uploadDuration, (ContinuousClock.now - started).timeInterval)
        metrics.countUploaded(transfer.staged.size, tenant: transfer.tenant)
    }
}
