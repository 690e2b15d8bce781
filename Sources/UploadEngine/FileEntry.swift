import Foundation

/// One file's record inside a batch. Internal: the batch is its only writer.
struct FileEntry: Sendable {
    let slot: Int
    var item: FileItem
    /// The request that introduced the file; its per-call observer hears about it.
    var requestId: String
    var state: FileState = .queued
    var generation = 0
    /// 1-based number of the attempt under way or last made, within the current run of automatic retries.
    var attempt = 1
    /// Retained bytes: kept while the file is queued, in flight or failed, so a retry needs no new source.
    var staged: StagedFile?
    /// The last presign answer; dropped when it expired or was malformed so the next attempt re-presigns.
    var target: UploadTarget?
    /// Files started together from the queue by one request; their presign goes out as one call.
    var cohort = 0
    /// Since when the file has waited in `presigning` for its cohort's call to be made; nil when it is not waiting.
    var awaitingPresignSince: Date?
    var awaitingPresign: Bool { awaitingPresignSince != nil }
    /// A queued file waiting for its automatic retry is not started before this.
    var notBefore: Date?
    var error: UploadError?
    var attachment: Attachment?
    /// High-water mark of reported progress; progress events never go below it.
    var reportedBytes: Int64 = 0
    var lastProgressEvent: Date?
    /// Last time the upload moved bytes (or started), for stall detection.
    var lastMovement: Date?
    var sentBytes: Int64 = 0

    var token: AttemptToken { AttemptToken(entry: slot, generation: generation) }

    var fileId: String { item.fileId }

    /// The mime type to upload and report: what the bytes showed, else what the job declared, else by extension.
    var resolvedMimeType: String {
        staged?.mimeType ?? item.mimeType ?? MimeTypes.forExtension(Attachment.fileExtension(of: item.name))
    }
}
