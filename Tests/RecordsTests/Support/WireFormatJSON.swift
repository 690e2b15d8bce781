import UploadEngine
import WireFormat

/// The Attachment and UploadResult objects of `docs/wire-format.md`, built here member by member from the values, so
/// an encoded event can be compared with them whole: a member missing, added or wrong fails the comparison, as a
/// decode-and-compare round trip would.
enum WireFormatJSON {
    static func attachment(_ attachment: UploadEngine.Attachment) -> JSONValue {
        var members: [String: JSONValue] = [
            "fileId": .string(attachment.fileId), "name": .string(attachment.name), "url": .string(attachment.url),
            "mimeType": .string(attachment.mimeType), "extension": .string(attachment.extension),
            "size": .int(attachment.size), "type": .string(attachment.type.rawValue), "sha256": .string(attachment.sha256),
        ]
        if let encryption = attachment.encryption { members["encryption"] = .string(encryption) }
        return .object(members)
    }

    static func result(_ result: UploadResult) -> JSONValue {
        func failures(_ entries: [UploadResult.Failure]) -> JSONValue {
            .array(entries.map { entry in
                ["fileId": .string(entry.fileId),
                 "error": ["code": .string(entry.error.code), "message": .string(entry.error.message),
                           "retryable": .bool(entry.error.retryable)]]
            })
        }
        return [
            "batchId": .string(result.batchId),
            "successful": .array(result.successful.map { ["fileId": .string($0.fileId), "attachment": attachment($0.attachment)] }),
            "rejectedTotal": .int(Int64(result.rejectedTotal)),
            "rejected": failures(result.rejected),
            "failed": failures(result.failed),
        ]
    }
}
