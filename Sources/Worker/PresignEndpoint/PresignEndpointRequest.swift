import Foundation
import UploadEngine
import WireFormat

/// The body of a presign endpoint call (`docs/wire-format.md#presign-endpoint`):
/// `{"batchId","receiver":{"id","type"},"sender","parentMessageId","files":[{"fileId","name","mimeType","size"}]}`.
/// `sender` and `parentMessageId` are left out when the batch has none.
struct PresignEndpointRequest: Sendable, Hashable {
    /// One file as the endpoint sees it.
    struct File: Sendable, Hashable {
        /// The app-supplied id.
        var fileId: String
        /// The display name.
        var name: String
        /// The staged file's mime type.
        var mimeType: String
        /// The staged size in bytes.
        var size: Int64
    }

    /// The batch the files belong to.
    var batchId: String
    /// Who the files are for: `{"id","type"}`.
    var receiver: Receiver
    /// The uid the messages are sent on behalf of.
    var sender: String?
    /// The message the batch replies to.
    var parentMessageId: String?
    /// The files to presign, in input order.
    var files: [File]

    /// The body for presigning `files` of the batch `context`.
    init(files: [PresignFile], context: BatchContext) {
        batchId = context.batchId
        receiver = context.receiver
        sender = context.sender
        parentMessageId = context.parentMessageId
        self.files = files.map { File(fileId: $0.fileId, name: $0.name, mimeType: $0.mimeType, size: $0.size) }
    }

    /// The JSON body, written directly (one per presign call, on every job's path).
    var body: Data {
        var json = JSONWriter(capacity: 256 + 160 * files.count)
        json.beginObject()
        json.field("batchId", batchId)
        json.field("receiver", receiver)
        if let sender { json.field("sender", sender) }
        if let parentMessageId { json.field("parentMessageId", parentMessageId) }
        json.key("files")
        json.beginArray()
        for file in files {
            json.beginObject()
            json.field("fileId", file.fileId)
            json.field("name", file.name)
            json.field("mimeType", file.mimeType)
            json.field("size", file.size)
            json.endObject()
        }
        json.endArray()
        json.endObject()
        return json.data()
    }
}
