import Foundation
import UploadEngine

/// Times successful uploads into `attache_upload_duration_seconds`, and counts their bytes by tenant.
struct TimedUploader: Uploader {
    let inner: any Uploader
    let metrics: WorkerMetrics

    func upload(_ transfer: UploadTransfer, progress: @escaping @Sendable (Int64, Int64) -> Void) async throws {
        let started = ContinuousClock.now
        try await inner.upload(transfer, progress: progress)
        metrics.registry.observe(WorkerMetrics.uploadDuration, (ContinuousClock.now - started).timeInterval)
        metrics.countUploaded(transfer.staged.size, tenant: transfer.tenant)
    }
}
