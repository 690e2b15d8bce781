import Foundation
import Records
import UploadEngine
import Worker

/// Plays every collaborator of one batch at once, as ``EncodedSizeProbe/Answers`` say: stages each file, answers each
/// presign call, finishes each upload and each message post, and lets time pass to the batch's next deadline (a
/// retry, a gather window) while it is in progress. Keeps every event, stamped as the worker stamps them, and the
/// batch after every round of answers that changed its durable state, as the worker snapshots it: the largest
/// snapshot need not be the last (a pending file keeps its source, an uploaded one may not).
struct ImmediateCollaborators {
    private(set) var batch: UploadBatch
    let answers: EncodedSizeProbe.Answers
    private(set) var now = Date(timeIntervalSince1970: 1_900_000_000)
    private(set) var events: [WorkerEvent] = []
    private(set) var snapshots: [UploadBatch] = []
    private var pending: [BatchAction] = []
    private var uploads = 0
    private var presigned = 0
    private var posts = 0

    /// What a server may answer at most, of characters that escape in JSON: a presign refusal's or a transport
    /// error's message, cut to this by the event and snapshot writers anyway.
    private static let longMessage = String(repeating: "\"", count: WireError.messageLimit)
    /// A message API's id for a sent message.
    private static let responseId = String(repeating: "9", count: 64)

    init(batch: UploadBatch, answers: EncodedSizeProbe.Answers) {
        self.batch = batch
        self.answers = answers
    }

    /// Applies an upload job to the batch, and answers what follows.
    mutating func apply(_ job: UploadJob) {
        take(batch.takeJob(job.files, requestId: job.requestId, options: job.message, concurrency: job.concurrency, now: now))
        settle()
    }

    /// A `send` control, and what follows: what manual mode waits for, and a new try of what failed to send.
    mutating func requestSend() {
        take(batch.requestSend(now: now))
        settle()
    }

    /// Takes what the batch returned: its events, numbered; its actions, to answer.
    private mutating func take(_ effects: BatchEffects) {
        var stamped = effects.events
        batch.stampSequence(&stamped)
        events += stamped.map(WorkerEvent.upload)
        pending += effects.actions
    }

    /// Answers round after round until nothing is pending and nothing waits for a deadline. Bounded in rounds, so a
    /// fuzzer's input cannot make it spin.
    private mutating func settle() {
        for _ in 0..<1_000 {
            if snapshots.last?.stateVersion != batch.stateVersion { snapshots.append(batch) }
            if pending.isEmpty {
                guard let deadline = batch.nextDeadline else { return }
                now = max(now, deadline)
                take(batch.tick(now: now))
                continue
            }
            let actions = pending
            pending = []
            actions.forEach { answer($0) }
        }
    }

    private mutating func answer(_ action: BatchAction) {
        switch action {
        case .stage(let token, let item, let sizeLimit, _):
            let size: Int64 = if case .data(let bytes) = item.source { Int64(bytes.count) } else { item.declaredSize ?? 1 }
            let staged = StagedFile(path: "/staging/\(token)", size: min(max(size, 1), sizeLimit),
                                    sha256: String(repeating: "f", count: 64), mimeType: item.mimeType)
            take(batch.staged(token, .success(staged), now: now))
        case .presign(let calls):
            var outcomes: [String: PresignOutcome] = [:]
            for call in calls {
                outcomes[call.file.fileId] = answers.presignRefuses(presigned)
                    ? .refused(UploadError(.presignedURLFailed, Self.longMessage, retryable: false))
                    : .target(Self.target(batchId: batch.batchId, file: call.file, expiresAt: now + .seconds(3600)))
                presigned += 1
            }
            take(batch.presigned(calls, .success(outcomes), now: now))
        case .upload(let token, let transfer):
            // Every upload is one in as many parts as S3 allows, all of them stored, before it ends either way.
            take(batch.multipartStored(token, Self.multipart(transfer), now: now))
            let fails = answers.uploadFails(uploads)
            uploads += 1
            take(batch.uploaded(token, fails ? .failure(UploadError(.s3UploadFailed, Self.longMessage)) : .success(()), now: now))
        case .post(let token, _):
            let fails = answers.postFails(posts)
            posts += 1
            take(fails ? batch.messageFailed(token, UploadError("ERR_MESSAGE_SEND_FAILED", Self.longMessage), now: now)
                       : batch.messagePosted(token, responseId: Self.responseId, now: now))
        case .awaitRecord(let token):
            // Recorded at once: the snapshot that carries the plan is among those measured.
            take(batch.planRecorded(token, now: now))
        case .cancel, .release, .keep, .deleteObject, .abortUpload:
            break
        }
    }

    /// The largest multipart upload S3 allows: 10,000 parts, with a key of S3's 1,024 bytes and an upload id and ETags
    /// at the longest Attache keeps.
    static func multipart(_ transfer: UploadTransfer) -> MultipartUpload {
        let parts = (1...10_000).map {
            MultipartUpload.Part(number: $0, etag: String(repeating: "e", count: MultipartUpload.maxETagBytes),
                                 sha256: String(repeating: "5", count: 64))
        }
        return MultipartUpload(key: WireError.cut(transfer.target.fileURL, toBytes: 1024), uploadId: String(repeating: "u", count: MultipartUpload.maxUploadIdBytes),
                               partSize: 8 << 20, sha256: transfer.staged.sha256,
                               sourceVersion: String(repeating: "9", count: MultipartUpload.maxSourceVersionBytes), parts: parts)
    }

    /// A target as `presign.mode = s3` makes it: the object key `<batchId>/<fileId>/<name>` (S3 keys take at most 1024
    /// bytes) percent-encoded under a bucket's URL, the upload URL the same with a signature.
    static func target(batchId: String, file: PresignFile, expiresAt: Date) -> UploadTarget {
        let key = WireError.cut("\(batchId)/\(file.fileId)/\(file.name)", toBytes: 1024)
        let path = key.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? key
        let object = "https://attache-uploads-eu-west-1.s3.eu-west-1.amazonaws.com/" + path
        return UploadTarget(uploadURL: object + "?X-Amz-Signature=" + String(repeating: "a", count: 64), fileURL: object,
                            expiresAt: expiresAt)
    }
}
