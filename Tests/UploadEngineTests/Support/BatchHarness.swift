import Foundation
import TestSupport
@testable import UploadEngine

/// Drives an `UploadBatch` by hand with a virtual clock: records its events and holds its actions until the test
/// completes them, so every interleaving is explicit.
struct BatchHarness {
    var batch: UploadBatch
    var now = Date(timeIntervalSince1970: 1_800_000_000)
    var events: [UploadEvent] = []
    var stages: [(token: AttemptToken, item: FileItem)] = []
    /// By file id, the multipart upload its last stage action said the file resumes.
    var stagedResuming: [String: MultipartUpload] = [:]
    var presigns: [[PresignCall]] = []
    var uploads: [(token: AttemptToken, transfer: UploadTransfer)] = []
    var cancelled: [AttemptToken] = []
    var released: [StagedFile] = []
    /// Bytes read in place that failed files asked to keep (`BatchAction.keep`), in order.
    var kept: [(token: AttemptToken, staged: StagedFile)] = []
    var deleted: [Attachment] = []
    var aborted: [MultipartUpload] = []
    var presignCalls: [[String]] = []
    var uploadCalls: [String] = []
    var posts: [(token: SendToken, message: PlannedMessage)] = []
    /// Send plans waiting to be recorded, when ``recordsPlansAtOnce`` is off (``recordPlan()`` records the oldest).
    var plansToRecord: [SendToken] = []
    /// Whether a send plan counts as recorded as soon as it is made (the driver without durable state).
    var recordsPlansAtOnce = true

    init(configure: (inout EngineConfiguration) -> Void = { _ in }, concurrency: Int? = nil, seed: UInt64 = 7) {
        var configuration = EngineConfiguration()
        configure(&configuration)
        let context = BatchContext(batchId: "b1", receiver: Receiver(id: "u1", type: .user))
        batch = UploadBatch(context: context, configuration: configuration, concurrency: concurrency, random: JitterRandom(seed: seed))
    }

    @discardableResult
    mutating func absorb(_ effects: BatchEffects) -> ControlOutcome {
        events += effects.events
        for action in effects.actions {
            switch action {
            case .stage(let token, let item, _, let resuming):
                stages.append((token, item))
                stagedResuming[item.fileId] = resuming
            case .presign(let calls):
                presigns.append(calls)
                presignCalls.append(calls.map(\.file.fileId))
            case .upload(let token, let transfer):
                uploads.append((token, transfer))
                uploadCalls.append(transfer.target.fileURL)
            case .cancel(let token): cancelled.append(token)
            case .release(let staged): released.append(staged)
            case .keep(let token, let staged): kept.append((token, staged))
            case .deleteObject(let attachment, _): deleted.append(attachment)
            case .abortUpload(let upload): aborted.append(upload)
            case .post(let token, let message): posts.append((token, message))
            case .awaitRecord(let token):
                if recordsPlansAtOnce { absorb(batch.planRecorded(token, now: now)) } else { plansToRecord.append(token) }
            }
        }
        return effects.outcome
    }

    // MARK: Inputs

    mutating func add(_ items: [FileItem], request: String = "r1") {
        absorb(batch.add(items, requestId: request, now: now))
    }

    mutating func advance(_ duration: Duration) {
        now = now + duration
        absorb(batch.tick(now: now))
    }

    @discardableResult mutating func remove(_ fileId: String) -> ControlOutcome { absorb(batch.remove(fileId: fileId, now: now)) }
    @discardableResult mutating func retry(_ fileId: String) -> ControlOutcome { absorb(batch.retry(fileId: fileId, now: now)) }
    mutating func clear() { absorb(batch.clear(now: now)) }
    mutating func setConcurrency(_ value: Int) { absorb(batch.setConcurrency(value, now: now)) }

    // MARK: Completing held actions

    /// Completes the pending stage of `fileId` (with the item's inline size, or `size`, or an error); `inPlace`
    /// stages it as a source read in place rather than a copy.
    mutating func stage(_ fileId: String, size: Int64? = nil, mimeType: String? = nil, inPlace: Bool = false,
                        error: UploadError? = nil) {
        guard let index = stages.firstIndex(where: { $0.item.fileId == fileId }) else { return }
        let (token, item) = stages.remove(at: index)
        if let error {
            absorb(batch.staged(token, .failure(error), now: now))
            return
        }
        let inline: Int64? = if case .data(let bytes) = item.source { Int64(bytes.count) } else { nil }
        let bytes: StagedBytes = inPlace ? .source(MemorySource(count: Int(size ?? 1000))) : .copy(path: "/staging/\(token)")
        let staged = StagedFile(bytes: bytes, size: size ?? inline ?? 1000, sha256: "sha-\(fileId)", mimeType: mimeType ?? item.mimeType)
        absorb(batch.staged(token, .success(staged), now: now))
    }

    mutating func stageAll() {
        while let next = stages.first { stage(next.item.fileId) }
    }

    /// Answers the oldest pending presign call.
    mutating func answerPresign(_ answer: ([PresignFile]) -> Result<[String: PresignOutcome], UploadError>) {
        guard !presigns.isEmpty else { return }
        let calls = presigns.removeFirst()
        absorb(batch.presigned(calls, answer(calls.map(\.file)), now: now))
    }

    /// Answers every pending presign call with targets expiring at `expiresAt` (default: an hour from now).
    mutating func presignAll(expiresAt: Date? = nil) {
        let expiry = expiresAt ?? now + .seconds(3600)
        while !presigns.isEmpty {
            answerPresign { files in
                .success(Dictionary(uniqueKeysWithValues: files.map { ($0.fileId, .target(Self.target($0.fileId, expiresAt: expiry))) }))
            }
        }
    }

    static func target(_ fileId: String, expiresAt: Date?, url: String? = nil) -> UploadTarget {
        UploadTarget(uploadURL: url ?? "https://store.test/\(fileId)?X-Amz-Signature=s", fileURL: "https://cdn.test/\(fileId)", expiresAt: expiresAt)
    }

    mutating func progress(_ fileId: String, sent: Int64) {
        guard let upload = uploads.first(where: { $0.transfer.staged.sha256 == "sha-\(fileId)" }) else { return }
        absorb(batch.progress(upload.token, sent: sent, now: now))
    }

    /// Completes the pending upload of `fileId`; `sha256` is the digest the upload computed, if any.
    mutating func finishUpload(_ fileId: String, error: UploadError? = nil, sha256: String? = nil) {
        guard let index = uploads.firstIndex(where: { $0.transfer.staged.sha256 == "sha-\(fileId)" }) else { return }
        let token = uploads.remove(at: index).token
        absorb(batch.uploaded(token, error.map { .failure($0) } ?? .success(()), sha256: sha256, now: now))
    }

    /// Lets everything in flight succeed, repeatedly, until nothing is pending (retries waiting for time excepted).
    mutating func settleAll() {
        while !stages.isEmpty || !presigns.isEmpty || !uploads.isEmpty {
            stageAll()
            presignAll()
            while let next = uploads.first { finishUpload(String(next.transfer.staged.sha256.dropFirst(4))) }
        }
    }

    /// Answers the oldest pending message post.
    mutating func answerPost(responseId: String? = "api-1", error: UploadError? = nil) {
        guard !posts.isEmpty else { return }
        let post = posts.removeFirst()
        if let error {
            absorb(batch.messageFailed(post.token, error, now: now))
        } else {
            absorb(batch.messagePosted(post.token, responseId: responseId, now: now))
        }
    }

    mutating func requestSend() { absorb(batch.requestSend(now: now)) }

    /// Records the oldest send plan waiting to be recorded.
    mutating func recordPlan() {
        guard !plansToRecord.isEmpty else { return }
        absorb(batch.planRecorded(plansToRecord.removeFirst(), now: now))
    }

    /// The messages posted so far, as their files.
    var postedFileIds: [[String]] { events.compactMap { if case .messageSent(_, _, let ids, _) = $0.kind { ids } else { nil } } }

    // MARK: Reading events

    func kinds(of fileId: String) -> [UploadEvent.Kind] {
        events.filter { $0.fileId == fileId }.map(\.kind)
    }

    var completions: [UploadResult] {
        events.compactMap { if case .completed(let result) = $0.kind { result } else { nil } }
    }

    func rejection(of fileId: String) -> UploadError? {
        for case .rejected(let error) in kinds(of: fileId) { return error }
        return nil
    }

    func failures(of fileId: String) -> [(error: UploadError, attempt: Int, willRetry: Bool)] {
        kinds(of: fileId).compactMap { if case .failed(let e, let a, let w) = $0 { (e, a, w) } else { nil } }
    }

    func progressEvents(of fileId: String) -> [(loaded: Int64, total: Int64, percent: Int)] {
        kinds(of: fileId).compactMap { if case .progress(let l, let t, let p) = $0 { (l, t, p) } else { nil } }
    }
}

/// An inline file of `size` bytes.
func inline(_ fileId: String, size: Int = 100, mime: String? = "image/jpeg", name: String? = nil) -> FileItem {
    FileItem(fileId: fileId, name: name ?? "\(fileId).jpg", mimeType: mime, source: .data(Data(repeating: 7, count: size)))
}

/// A URL-sourced file.
func remote(_ fileId: String, mime: String? = "application/pdf", size: Int64? = nil) -> FileItem {
    FileItem(fileId: fileId, name: "\(fileId).pdf", mimeType: mime, declaredSize: size, source: .url("https://files.test/\(fileId).pdf"))
}
