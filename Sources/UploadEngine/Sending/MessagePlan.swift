import Foundation
import WireFormat

/// One message of a plan: attachments of one media kind, at most `attachmentsPerMessage` of them.
public struct PlannedMessage: Sendable, Hashable {
    /// Deterministic from the batch id and the attachments' file ids, so a replay re-sends the same muid.
    public var muid: String
    public var type: MediaKind
    /// In the order their files were added.
    public var attachments: [Attachment]
    /// Only the first message of a batch carries the caption.
    public var caption: String?

    public var fileIds: [String] { attachments.map(\.fileId) }
}

/// Groups a drain's unsent attachments into messages: images, then videos, audios and files; each group cut into
/// chunks of at most `perMessage`; the caption on the first message.
public enum MessagePlan {
    public static func make(batchId: String, attachments: [Attachment], caption: String?, perMessage: Int) -> [PlannedMessage] {
        let size = max(1, perMessage)
        var messages: [PlannedMessage] = []
        for kind in MediaKind.allCases {
            let group = attachments.filter { $0.type == kind }
            for start in stride(from: 0, to: group.count, by: size) {
                let chunk = Array(group[start..<min(start + size, group.count)])
                messages.append(PlannedMessage(muid: muid(batchId: batchId, fileIds: chunk.map(\.fileId)), type: kind,
                                               attachments: chunk, caption: messages.isEmpty ? caption : nil))
            }
        }
        return messages
    }

    /// The muid of a message carrying these files of this batch: a name-based UUID, lower case.
    public static func muid(batchId: String, fileIds: [String]) -> String {
        NameBasedUUID.string(namespace: NameBasedUUID.messageNamespace, joining: [batchId] + fileIds)
    }
}
