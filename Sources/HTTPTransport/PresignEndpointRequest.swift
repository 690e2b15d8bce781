import UploadEngine

/// The body of a presign endpoint call (DESIGN §2.3):
/// `{"batchId","receiver":{"id","type"},"sender","parentMessageId","files":[{"fileId","name","mimeType","size"}]}`.
/// `sender` and `parentMessageId` are left out when the batch has none.
struct PresignEndpointRequest: Encodable, Sendable, Hashable {
    struct File: Encodable, Sendable, Hashable {
        var fileId: String
        var name: String
        var mimeType: String
        var size: Int64
    }

    var batchId: String
    var receiver: Receiver
    var sender: String?
    var parentMessageId: String?
    var files: [File]

    init(files: [PresignFile], context: BatchContext) {
        batchId = context.batchId
        receiver = context.receiver
        sender = context.sender
        parentMessageId = context.parentMessageId
        self.files = files.map { File(fileId: $0.fileId, name: $0.name, mimeType: $0.mimeType, size: $0.size) }
    }
}
