import UploadEngine
import Foundation

/// Which incomplete multipart uploads under the key prefix are orphans (DESIGN §12 *No orphaned parts*): old enough,
/// and referenced by no batch. Pure: the caller says what it knows of each batch.
///
/// An upload is written under `{prefix}/{batchId}/{fileId}/{name}`, so its key names its batch. A batch that is
/// recorded references the uploads its unfinished files will resume; any other upload of that batch is an orphan (a
/// worker killed between creating it and recording it, an abort that never reached storage). What the caller cannot
/// judge — a batch another worker owns, a snapshot it cannot read, a key not laid out by Attache — is kept.
public struct S3OrphanedUploads: Sendable {
    /// What the caller knows of a batch.
    public enum BatchKnowledge: Sendable, Hashable {
        /// The batch is recorded: these are the upload ids its files reference.
        case references(Set<String>)
        /// No batch of this id exists any more (read from the whole changelog): none of its uploads is referenced.
        case absent
        /// The caller cannot tell (not its batch, or unreadable): its uploads are kept.
        case unknown
    }

    /// An upload and the verdict on it.
    public struct Verdict: Sendable, Hashable {
        public var upload: S3IncompleteUpload
        /// The batch its key names; nil for a key outside Attache's layout.
        public var batchId: String?
        /// Whether it is to be aborted.
        public var isOrphan: Bool
        /// Why, in a few words.
        public var reason: String
    }

    /// The key prefix uploads are written under (`presign.s3.prefix`).
    public var prefix: String
    /// Uploads created less than this long ago are kept whatever their batch says: their record may be on its way.
    public var minimumAge: Duration

    public init(prefix: String, minimumAge: Duration) {
        self.prefix = prefix
        self.minimumAge = minimumAge
    }

    /// A verdict on each upload, in the order given.
    public func judge(_ uploads: [S3IncompleteUpload], now: Date, knowledge: (String) -> BatchKnowledge) -> [Verdict] {
        uploads.map { upload in
            guard let batchId = S3ObjectKey.batchId(ofKey: upload.key, prefix: prefix) else {
                return Verdict(upload: upload, batchId: nil, isOrphan: false, reason: "not an Attache key")
            }
            guard let initiated = upload.initiated, now.timeIntervalSince(initiated) >= minimumAge.timeInterval else {
                return Verdict(upload: upload, batchId: batchId, isOrphan: false, reason: "too recent")
            }
            switch knowledge(batchId) {
            case .references(let ids) where ids.contains(upload.uploadId):
                return Verdict(upload: upload, batchId: batchId, isOrphan: false, reason: "resumed by its batch")
            case .references:
                return Verdict(upload: upload, batchId: batchId, isOrphan: true, reason: "not referenced by its batch")
            case .absent:
                return Verdict(upload: upload, batchId: batchId, isOrphan: true, reason: "its batch is gone")
            case .unknown:
                return Verdict(upload: upload, batchId: batchId, isOrphan: false, reason: "batch not known here")
            }
        }
    }
}
