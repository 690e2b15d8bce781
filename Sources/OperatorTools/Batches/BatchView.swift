import Foundation
import Records
import UploadEngine
import WireFormat

/// A batch as `attache batch show` presents it: the reference's getters (`getStatus`, `getAttachmentCount`,
/// `getAttachments`, `getAttachmentsByType`, the rejected and failed files with their errors) and what was sent.
public struct BatchView: Sendable, Hashable {
    public struct Message: Sendable, Hashable {
        public var muid: String
        public var fileIds: [String]

        public init(muid: String, fileIds: [String]) {
            self.muid = muid
            self.fileIds = fileIds
        }
    }

    public var batchId: String
    public var receiver: Receiver
    public var sender: String?
    /// `in-progress` or `idle`.
    public var status: String
    public var count: Int
    public var concurrency: Int
    public var send: String
    public var caption: String?
    public var attachments: [Attachment]
    /// Every media type, each with its attachments in input order (empty lists included).
    public var attachmentsByType: [String: [Attachment]]
    public var rejected: [UploadResult.Failure]
    public var rejectedTotal: Int
    public var failed: [UploadResult.Failure]
    public var sent: [Message]
    public var captionSent: Bool
    /// Uploaded, not sent yet.
    public var unsent: [String]
    /// RFC 3339, when the batch's durable state last changed.
    public var updatedAt: String?

    public init(_ batch: UploadBatch) {
        let result = batch.result
        batchId = batch.batchId
        receiver = batch.context.receiver
        sender = batch.context.sender
        status = Self.statusName(batch.status)
        count = batch.count
        concurrency = batch.concurrency
        send = batch.messageOptions.send.rawValue
        caption = batch.messageOptions.caption
        attachments = batch.attachments
        attachmentsByType = Dictionary(uniqueKeysWithValues: MediaKind.allCases.map { ($0.rawValue, batch.attachments(ofType: $0)) })
        rejected = result.rejected
        rejectedTotal = result.rejectedTotal
        failed = result.failed
        sent = batch.sentMessages.map { Message(muid: $0.muid, fileIds: $0.fileIds) }
        captionSent = batch.captionSent
        unsent = batch.unsentAttachments.map(\.fileId)
        updatedAt = batch.updatedAt.map(RFC3339Instant.format)
    }

    /// The names `--state` takes.
    public static func statusName(_ status: BatchStatus) -> String {
        status == .idle ? "idle" : "in-progress"
    }

    /// The view as JSON, indented, keys sorted (so two outputs diff line by line); `sender`, `caption` and
    /// `updatedAt` are left out when there are none.
    public var json: Data {
        var members: [String: JSONValue] = [
            "batchId": .string(batchId),
            "receiver": ["id": .string(receiver.id), "type": .string(receiver.type.rawValue)],
            "status": .string(status),
            "count": .int(Int64(count)),
            "concurrency": .int(Int64(concurrency)),
            "send": .string(send),
            "attachments": .array(attachments.map(Self.json)),
            "attachmentsByType": .object(attachmentsByType.mapValues { .array($0.map(Self.json)) }),
            "rejected": .array(rejected.map(Self.json)),
            "rejectedTotal": .int(Int64(rejectedTotal)),
            "failed": .array(failed.map(Self.json)),
            "sent": .array(sent.map { ["muid": .string($0.muid), "fileIds": .array($0.fileIds.map(JSONValue.string))] }),
            "captionSent": .bool(captionSent),
            "unsent": .array(unsent.map(JSONValue.string)),
        ]
        if let sender { members["sender"] = .string(sender) }
        if let caption { members["caption"] = .string(caption) }
        if let updatedAt { members["updatedAt"] = .string(updatedAt) }
        var json = JSONWriter(capacity: 4096)
        json.indentedValue(.object(members))
        return json.data()
    }

    /// An attachment as an `attache.file.uploaded` event gives it — written by the events' own encoder, so a script
    /// reads both alike.
    private static func json(_ attachment: Attachment) -> JSONValue {
        var writer = JSONWriter()
        CloudEventEncoder.write(attachment, into: &writer)
        // The encoder's own output: it always parses.
        return writer.withBytes { try? JSONParser.parse($0) } ?? .null
    }

    /// A rejected or failed file with its error as events carry it (written by the events' own encoder).
    private static func json(_ failure: UploadResult.Failure) -> JSONValue {
        var writer = JSONWriter()
        CloudEventEncoder.write(failure.error, into: &writer)
        return ["fileId": .string(failure.fileId), "error": writer.withBytes { try? JSONParser.parse($0) } ?? .null]
    }

    /// The view for people: a header, then one section per getter.
    public var text: String {
        var lines = ["batch \(batchId)",
                     "  receiver     \(receiver.type.rawValue):\(receiver.id)" + (sender.map { " (from \($0))" } ?? ""),
                     "  status       \(status)",
                     "  count        \(count)",
                     "  concurrency  \(concurrency)",
                     "  send         \(send)" + (caption.map { ", caption \"\($0)\"" } ?? ""),
                     "  updated      \(updatedAt ?? "-")",
                     "attachments (\(attachments.count), input order)"]
        lines += attachments.map { "  \($0.fileId)  \($0.name)  \($0.type.rawValue)  \($0.mimeType)  \($0.size) B  \($0.url)" }
        lines.append("by type")
        for kind in MediaKind.allCases {
            let ids = attachmentsByType[kind.rawValue]?.map(\.fileId) ?? []
            lines.append("  \(kind.rawValue.padding(toLength: 6, withPad: " ", startingAt: 0)) \(ids.count)" + (ids.isEmpty ? "" : "  " + ids.joined(separator: ", ")))
        }
        lines.append("rejected (\(rejectedTotal)\(rejectedTotal > rejected.count ? ", the \(rejected.count) most recent listed" : ""))")
        lines += rejected.map { "  \($0.fileId)  \($0.error.code)  \($0.error.message)" }
        lines.append("failed (\(failed.count))")
        lines += failed.map { "  \($0.fileId)  \($0.error.code)  \($0.error.message)" }
        lines.append("sent (\(sent.count) message\(sent.count == 1 ? "" : "s")\(captionSent ? ", caption sent" : ""))")
        lines += sent.map { "  \($0.muid)  \($0.fileIds.joined(separator: ", "))" }
        if !unsent.isEmpty { lines.append("not sent yet: \(unsent.joined(separator: ", "))") }
        return lines.joined(separator: "\n")
    }

    /// One line of `attache batch list`.
    public var listLine: String {
        "\(batchId)  \(status)  \(receiver.type.rawValue):\(receiver.id)  files \(count)  uploaded \(attachments.count)  "
            + "rejected \(rejectedTotal)  failed \(failed.count)  sent \(sent.count)  \(updatedAt ?? "-")"
    }
}
