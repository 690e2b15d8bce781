/// Limits a batch enforces (`docs/contract.md`; `limits.*` in `docs/configuration.md`).
public struct UploadLimits: Sendable, Hashable {
    /// Per-file size limit (`limits.fileSizeMax`), also enforced while bytes stream in.
    public var fileSizeMax: Int64 = 100 * 1024 * 1024
    /// Files a batch holds at once (`limits.fileCountMax`); rejected and removed files take no room.
    public var fileCountMax: Int = 10
    /// Attachments in one sent message (`limits.attachmentsPerMessage`).
    public var attachmentsPerMessage: Int = 10
    /// Largest decoded inline `data` source (`limits.inlineMax`).
    public var inlineMax: Int64 = 1024 * 1024
    /// Files one job may list (`limits.filesPerJob`); a job with more is invalid as a whole.
    public var filesPerJob: Int = 100
    /// Bytes a job's `message` options (caption, metadata, tags) may take as encoded (`limits.messageOptionsMax`);
    /// a job with more is invalid as a whole.
    public var messageOptionsMax: Int = 16 * 1024
    /// Bytes of attachments one sent message may carry in all (`limits.messageBytesMax`); nil: no cap but the count.
    public var messageBytesMax: Int64?

    public init() {}
}

/// Everything a batch needs to know besides its context.
public struct EngineConfiguration: Sendable {
    public var limits = UploadLimits()
    public var retry = RetryPolicy()
    /// Files of a batch in flight at once unless the batch says otherwise (`upload.concurrency`, 1 = sequential).
    public var concurrency: Int = 1
    /// An upload that moves no bytes for this long is aborted with `ERR_UPLOAD_STALLED`.
    public var stallTimeout: Duration = .seconds(30)
    /// Staged files of a cohort wait at most this long for the rest of it before their presign call goes out
    /// without them: files that are ready together share a call, but one long copy does not hold the others back.
    public var presignGatherWindow: Duration = .milliseconds(50)
    /// A URL kept from an earlier attempt that expires within this is presigned again before the attempt's request
    /// starts (`presign.minValidity`): storage checks expiry as a request starts, so a URL about to expire would
    /// fail the attempt for nothing.
    public var presignMinValidity: Duration = .seconds(60)
    /// At most one progress event per file per interval (4 per second by default).
    public var progressInterval: Duration = .milliseconds(250)
    /// Whether drains and `send` controls post messages (`messages.mode` other than `none`).
    public var sendsMessages = true

    public init() {}
}
