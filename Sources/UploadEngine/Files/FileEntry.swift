import Foundation

/// One file's record inside a batch. Internal: the batch is its only writer.
///
/// What a file has depends on where it is (``FilePhase``): an uploading file has bytes, a target and a stall clock;
/// a failed one an error and what it retains for the retry; an uploaded one its attachment. Each transition builds
/// the next phase's data whole, so nothing of an earlier phase can linger by mistake.
struct FileEntry: Sendable {
    let slot: Int
    var item: FileItem
    /// The request that introduced the file; its per-call observer hears about it.
    var requestId: String
    var phase: FilePhase { didSet { state = phase.state } }
    /// Where `phase` is, kept beside it as a plain value. A batch's loops over its files ask this on every
    /// transition, and reading an enum with payloads out of an array copies the whole entry (retaining each of its
    /// references, then releasing them), where a plain field is read in place: those copies were some 10,000 of the
    /// engine's 177,000 instructions for a one-file job.
    private(set) var state: FileState
    /// A new one, from the batch's ``UploadBatch/takeGeneration()``, for every new attempt, re-use or settling:
    /// outcomes of older attempts are dropped, and no two attempts of any file of the batch ever share one — not
    /// after a `remove` or a `clear` either — so event ids and muids made from it never repeat.
    var generation: Int
    /// 1-based number of the attempt under way or last made, within the current run of automatic retries.
    var attempt = 1
    /// Reported progress, across attempts: progress events never go below it.
    var progress = ProgressMark()
    /// The multipart upload the file's attempts have started and not finished: durable, resumed by the next attempt.
    var multipart: MultipartUpload?

    init(slot: Int, item: FileItem, requestId: String, phase: FilePhase = .queued(Queued()), generation: Int) {
        self.slot = slot
        self.item = item
        self.requestId = requestId
        self.phase = phase
        self.state = phase.state
        self.generation = generation
    }

    var token: AttemptToken { AttemptToken(entry: slot, generation: generation) }

    var fileId: String { item.fileId }

    /// Retained bytes: kept while the file is queued, in flight or failed, so a retry needs no new source.
    var staged: StagedFile? {
        switch phase {
        case .queued(let queued): queued.retained.staged
        case .presigning(let presigning): presigning.staged
        case .uploading(let uploading): uploading.staged
        case .failed(let failed): failed.retained.staged
        case .staging, .uploaded, .rejected: nil
        }
    }

    /// Gives up what a file waiting for its next attempt (queued or failed) retained, bytes and URL alike, so that
    /// attempt stages the source again; returns the bytes to give back, nil when it held none.
    mutating func dropRetained() -> StagedFile? {
        let staged: StagedFile?
        switch phase {
        case .queued(var queued):
            staged = queued.retained.staged
            queued.retained = Retained()
            phase = .queued(queued)
        case .failed(var failed):
            staged = failed.retained.staged
            failed.retained = Retained()
            phase = .failed(failed)
        default:
            staged = nil
        }
        return staged
    }

    /// Gives up the file's unfinished multipart upload, asking storage to abort it.
    mutating func abandonMultipart(into effects: inout BatchEffects) {
        guard let upload = multipart else { return }
        effects.actions.append(.abortUpload(upload))
        multipart = nil
    }

    /// The error a settled unsuccessful file reports.
    var error: UploadError? {
        switch phase {
        case .failed(let failed): failed.error
        case .rejected(let error): error
        default: nil
        }
    }

    var attachment: Attachment? {
        if case .uploaded(let uploaded) = phase { return uploaded.attachment }
        return nil
    }

    /// The cohort of a file in flight: files started together by one request share a presign call.
    var cohort: Int? {
        switch phase {
        case .staging(let cohort): cohort
        case .presigning(let presigning): presigning.cohort
        case .uploading(let uploading): uploading.cohort
        default: nil
        }
    }

    /// Since when the file has waited in `presigning` for its cohort's call to be made; nil when it is not waiting.
    var awaitingPresignSince: Date? {
        if case .presigning(let presigning) = phase { return presigning.awaitingSince }
        return nil
    }

    var awaitingPresign: Bool { awaitingPresignSince != nil }

    /// The mime type to upload and report: what the bytes showed, else what the job declared, else by extension.
    var resolvedMimeType: String {
        staged?.mimeType ?? item.mimeType ?? MimeTypes.forExtension(Attachment.fileExtension(of: item.name))
    }
}

/// Where a file is, with what it has there.
enum FilePhase: Sendable {
    /// Waiting for a concurrency slot, or for the end of a retry backoff.
    case queued(Queued)
    /// Its source is being copied into staging.
    case staging(cohort: Int)
    /// Staged; its presign call is pending or under way.
    case presigning(Presigning)
    case uploading(Uploading)
    case uploaded(Uploaded)
    /// Retryable failure with no automatic attempt left.
    case failed(Failed)
    /// Not retryable: the input or the policy is wrong.
    case rejected(UploadError)

    var state: FileState {
        switch self {
        case .queued: .queued
        case .staging: .staging
        case .presigning: .presigning
        case .uploading: .uploading
        case .uploaded: .uploaded
        case .failed: .failed
        case .rejected: .rejected
        }
    }
}

/// What a file keeps from one attempt for the next: its staged bytes and the last presign answer (dropped when it
/// expired or was malformed, so the next attempt presigns again).
struct Retained: Sendable {
    var staged: StagedFile?
    var target: UploadTarget?
}

struct Queued: Sendable {
    var retained = Retained()
    /// A file waiting for its automatic retry is not started before this.
    var notBefore: Date?
}

struct Presigning: Sendable {
    var staged: StagedFile
    var cohort: Int
    /// Since when the file has waited for its cohort's call; nil once the call went out.
    var awaitingSince: Date?
}

struct Uploading: Sendable {
    var staged: StagedFile
    var target: UploadTarget
    var cohort: Int
    /// Last time the upload moved bytes (or started), for stall detection.
    var lastMovement: Date
    var sentBytes: Int64 = 0
}

struct Uploaded: Sendable {
    var attachment: Attachment
    /// Where the object went, for deleting it when the file is removed; nil once restored from a snapshot.
    var target: UploadTarget?
}

struct Failed: Sendable {
    var error: UploadError
    var retained: Retained
}

/// Progress reported for a file so far.
struct ProgressMark: Sendable {
    /// High-water mark of reported bytes.
    var reportedBytes: Int64 = 0
    var lastEvent: Date?
}

extension Array where Element == FileEntry {
    /// Whether some file's state passes `test`, each state read where it lies: `contains(where:)` and `for entry in`
    /// hand out every entry as a copy (see ``FileEntry/state``).
    func anyState(_ test: (FileState) -> Bool) -> Bool {
        for index in indices where test(self[index].state) { return true }
        return false
    }

    /// How many files' states pass `test` (see ``anyState(_:)``).
    func countStates(_ test: (FileState) -> Bool) -> Int {
        var count = 0
        for index in indices where test(self[index].state) { count += 1 }
        return count
    }

    /// Whether the file at `index` is queued, and not waiting for a retry backoff that lasts past `now`. Asked of the
    /// array, not the entry: a method of the entry took a copy of it, every reference in it retained and released,
    /// on each call of a scheduling pass.
    func isStartable(_ index: Int, at now: Date) -> Bool {
        guard self[index].state == .queued, case .queued(let queued) = self[index].phase else { return false }
        return queued.notBefore.map { $0 <= now } ?? true
    }
}
