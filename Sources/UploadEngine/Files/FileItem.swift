import Foundation
import WireFormat

/// Where a file's bytes come from, as decoded from a job record.
public enum FileSource: Sendable, Hashable {
    /// Inline bytes, already decoded.
    case data(Data)
    /// Inline bytes that were too large to decode; only their size is kept.
    case oversizedData(byteCount: Int64)
    /// Inline bytes of a file that settled for good (uploaded or rejected): nothing stages it again, so only their
    /// size is kept rather than the bytes, which an idle batch would otherwise hold for `worker.batchTTL`.
    case releasedData(byteCount: Int64)
    /// An http(s) URL to fetch.
    case url(String)
    /// A path relative to the configured source root.
    case path(String)
    /// A source that could not be understood; the reason ends up in the rejection message.
    case malformed(String)
    /// Inline bytes left in the job record that carried them (a batch restored from a snapshot holds no bytes):
    /// staging reads them back from the jobs topic.
    case recorded(RecordOrigin, byteCount: Int64)
}

/// Where an inline file came from: the jobs-topic record and the file's index in its `files` array.
public struct RecordOrigin: Sendable, Hashable {
    public var partition: Int32
    public var offset: Int64
    public var index: Int
    public init(partition: Int32, offset: Int64, index: Int) {
        self.partition = partition
        self.offset = offset
        self.index = index
    }
}

/// One file handed to a batch: the app-supplied id, a display name and a source.
///
/// Its strings come checked: the worker's job decoder holds each to its byte limit and character rule, and turns a
/// file that breaks one into a malformed source, which intake rejects `ERR_INVALID_FILE_OBJECT`. The batch takes the
/// id, name, mime type and source as they are.
public struct FileItem: Sendable, Hashable {
    public var fileId: String
    public var name: String
    public var mimeType: String?
    /// The size the job declared, if any; the staged size is authoritative.
    public var declaredSize: Int64?
    public var source: FileSource
    /// Whether location metadata is removed before upload; nil leaves it to the worker's setting.
    public var stripLocation: Bool?
    /// For inline data, the record that carried it: what a snapshot keeps instead of the bytes.
    public var origin: RecordOrigin?
    /// The trace context of the job that brought the file (its `traceparent` / `tracestate` headers).
    public var trace: TraceContext?

    public init(fileId: String, name: String, mimeType: String? = nil, declaredSize: Int64? = nil, source: FileSource,
                stripLocation: Bool? = nil, origin: RecordOrigin? = nil) {
        self.origin = origin
        self.fileId = fileId
        self.name = name
        self.mimeType = mimeType
        self.declaredSize = declaredSize
        self.source = source
        self.stripLocation = stripLocation
    }
}

extension FileItem {
    /// Lets go of inline bytes once the file can no longer be staged (see `FileSource.releasedData`).
    mutating func releaseInlineBytes() {
        if case .data(let bytes) = source { source = .releasedData(byteCount: Int64(bytes.count)) }
    }
}

/// Who a batch's files are for: the conversation the presigner authorises and the messages go to.
public struct Receiver: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable { case user, group }
    public var id: String
    public var type: Kind
    public init(id: String, type: Kind) {
        self.id = id
        self.type = type
    }
}

/// The fixed facts of a batch, sent with every presign call.
public struct BatchContext: Sendable, Hashable {
    public var batchId: String
    public var receiver: Receiver
    public var sender: String?
    public var parentMessageId: String?
    /// The trace context of the request a call is made for: set on the context handed to the presigner and the
    /// poster for that call, never part of the batch's own context.
    public var trace: TraceContext?
    /// Whose share of the worker's transfer slots the batch's files use (the job's `tenant`); nil: the receiver's.
    public var tenant: String?

    public init(batchId: String, receiver: Receiver, sender: String? = nil, parentMessageId: String? = nil,
                tenant: String? = nil) {
        self.batchId = batchId
        self.receiver = receiver
        self.sender = sender
        self.parentMessageId = parentMessageId
        self.tenant = tenant
    }

    /// The tenant the batch's transfers count against: its job's `tenant`, by default the receiver id (DESIGN §2.1).
    public var shareTenant: String { tenant ?? receiver.id }
}
