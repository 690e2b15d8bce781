import Foundation
import WireFormat

/// One message of a plan: attachments of one media kind, at most `attachmentsPerMessage` of them.
public struct PlannedMessage: Sendable, Hashable {
    /// Deterministic from the batch id and the attachments' file ids with their generations, so a replay re-sends
    /// the same muid, and a file re-added under an id that was sent before makes a new one.
    public var muid: String
    public var type: MediaKind
    /// In the order their files were added.
    public var attachments: [Attachment]
    /// The generation of each attachment's file, in the same order.
    public var generations: [Int]
    /// Only the first message of a batch carries the caption.
    public var caption: String?

    public var fileIds: [String] { attachments.map(\.fileId) }
}

/// Groups a drain's unsent attachments into messages: images, then videos, audios and files; each group cut, in
/// order, into chunks of at most `perMessage` attachments and, with `maxBytes`, at most that many bytes in all (an
/// attachment larger than that goes alone); the caption on the first message.
public enum MessagePlan {
    /// An uploaded file as a plan takes it: its attachment and the generation of the attempt that uploaded it.
    public typealias File = (attachment: Attachment, generation: Int)

    public static func make(batchId: String, files: [File], caption: String?, perMessage: Int,
                            maxBytes: Int64? = nil) -> [PlannedMessage] {
        let size = max(1, perMessage)
        var messages: [PlannedMessage] = []
        for kind in MediaKind.allCases {
            let group = files.filter { $0.attachment.type == kind }
            for chunk in chunks(of: group, count: size, bytes: maxBytes) {
                let fileIds = chunk.map(\.attachment.fileId), generations = chunk.map(\.generation)
                messages.append(PlannedMessage(muid: muid(batchId: batchId, fileIds: fileIds, generations: generations), type: kind,
                                               attachments: chunk.map(\.attachment), generations: generations,
                                               caption: messages.isEmpty ? caption : nil))
            }
        }
        return messages
    }

    /// Consecutive runs of `files`, each as long as it can be within `count` files and `bytes` bytes, and never empty.
    private static func chunks(of files: [File], count: Int, bytes: Int64?) -> [ArraySlice<File>] {
        var chunks: [ArraySlice<File>] = []
        var start = files.startIndex, total: Int64 = 0
        for index in files.indices {
            let fileSize = files[index].attachment.size
            let full = index - start == count || bytes.map { total + fileSize > $0 } ?? false
            if index > start, full {
                chunks.append(files[start..<index])
                start = index
                total = 0
            }
            total += fileSize
        }
        if start < files.endIndex { chunks.append(files[start...]) }
        return chunks
    }

    /// The muid of a message carrying these files of this batch, each at its generation: a name-based UUID, lower
    /// case. Every file id comes with its generation, so the parts cannot run into each other.
    public static func muid(batchId: String, fileIds: [String], generations: [Int]) -> String {
        var parts = [batchId]
        parts.reserveCapacity(1 + 2 * fileIds.count)
        for (fileId, generation) in zip(fileIds, generations) {
            parts.append(fileId)
            parts.append(String(generation))
        }
        return NameBasedUUID.string(namespace: NameBasedUUID.messageNamespace, joining: parts)
    }
}
