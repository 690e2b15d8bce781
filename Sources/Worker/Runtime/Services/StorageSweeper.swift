import Foundation
import S3
import UploadEngine

/// Every `storage.sweepInterval` (DESIGN §12 *No orphaned parts*): aborts the incomplete multipart uploads under
/// `presign.s3.prefix` that belong to a batch this worker owns and that none of its files will resume — an upload
/// whose worker was killed before recording it, or whose abort never reached storage. Batches this worker does not
/// own, or whose record it cannot read, are left alone; `attache storage sweep`, which reads the whole changelog,
/// also judges the uploads of batches that are gone.
struct StorageSweeper: Service {
    let storage: S3Storage
    let interval: Duration
    let registry: BatchRegistry
    let durable: DurableState?
    let assignment: @Sendable () -> Set<Int32>
    let logger: Logger

    var name: String { "storage-sweeper" }

    func run(until shutdown: ShutdownSignal) async {
        while await !shutdown.wait(upTo: interval) {
            await sweep()
        }
    }

    /// One pass. An upload younger than the interval is kept: its record may not be written yet.
    func sweep() async {
        let uploads: [S3IncompleteUpload]
        do {
            uploads = try await storage.incompleteUploads()
        } catch {
            logger.warn("could not list incomplete multipart uploads; the next sweep tries again", ["error": "\(error)"])
            return
        }
        let partitions = assignment()
        let judge = S3OrphanedUploads(prefix: storage.presigner.configuration.keyPrefix, minimumAge: interval)
        for verdict in judge.judge(uploads, now: Date(), knowledge: { knowledge(of: $0, partitions: partitions) })
        where verdict.isOrphan {
            let fields = ["key": verdict.upload.key, "uploadId": verdict.upload.uploadId, "batchId": verdict.batchId ?? "",
                          "reason": verdict.reason]
            do {
                try await storage.abortUpload(key: verdict.upload.key, uploadId: verdict.upload.uploadId)
                logger.info("aborted an orphaned multipart upload", fields)
            } catch {
                logger.warn("could not abort an orphaned multipart upload", fields.merging(["error": "\(error)"]) { $1 })
            }
        }
    }

    /// A batch in memory says it best (its latest uploads may not be stored yet); else the store, for owned partitions.
    private func knowledge(of batchId: String, partitions: Set<Int32>) -> S3OrphanedUploads.BatchKnowledge {
        if let runner = registry.runner(for: batchId) { return .references(Set(runner.multipartUploads.map(\.uploadId))) }
        return durable?.multipartKnowledge(of: batchId, partitions: partitions) ?? .unknown
    }
}
