import UploadEngine
import WireFormat

/// A control record of DESIGN §2.1 (`retry`, `remove`, `clear`, `send`, `configure`), checked before it is produced:
/// what `attache control` writes to the jobs topic, keyed by the batch id so it lands on the partition owning the
/// batch.
public struct ControlRecord: Sendable, Hashable {
    /// The control kinds and the fields each needs.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case retry, remove, clear, send, configure

        var needsFile: Bool { self == .retry || self == .remove }
        var needsConcurrency: Bool { self == .configure }
    }

    public let kind: Kind
    public let batchId: String
    public let fileId: String?
    public let concurrency: Int?

    /// Checks the fields the kind needs (and refuses those it does not take), as the worker's decoder would.
    public init(kind: String, batchId: String?, fileId: String?, concurrency: String?) throws(RecordInputError) {
        guard let kind = Kind(rawValue: kind) else {
            throw RecordInputError("unknown control '\(kind)' (retry, remove, clear, send or configure)")
        }
        guard let batchId else { throw RecordInputError("\(kind.rawValue) needs --batch ID") }
        if let problem = RecordField.batchId.problem(with: batchId, label: "--batch") { throw RecordInputError(problem) }
        if kind.needsFile {
            guard let fileId else { throw RecordInputError("\(kind.rawValue) needs --file ID") }
            if let problem = RecordField.fileId.problem(with: fileId, label: "--file") { throw RecordInputError(problem) }
        } else if fileId != nil {
            throw RecordInputError("\(kind.rawValue) takes no --file")
        }
        if kind.needsConcurrency {
            guard let concurrency else { throw RecordInputError("configure needs --concurrency N") }
            guard let number = Int(concurrency), (1...1000).contains(number) else {
                throw RecordInputError("--concurrency must be a whole number from 1 to 1000")
            }
            self.concurrency = number
        } else if concurrency != nil {
            throw RecordInputError("\(kind.rawValue) takes no --concurrency")
        } else {
            self.concurrency = nil
        }
        self.kind = kind
        self.batchId = batchId
        self.fileId = fileId
    }

    /// The record's key: the batch id.
    public var key: [UInt8] { Array(batchId.utf8) }

    /// The record's JSON value.
    public var value: [UInt8] {
        var writer = JSONWriter(capacity: 128)
        writer.beginObject()
        writer.field("kind", kind.rawValue)
        writer.field("batchId", batchId)
        if let fileId { writer.field("fileId", fileId) }
        if let concurrency { writer.field("concurrency", concurrency) }
        writer.endObject()
        return writer.bytes
    }
}
