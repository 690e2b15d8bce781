import Foundation
import WireFormat

/// The presign call's JSON (`docs/wire-format.md#presign-endpoint`).
enum PresignWire {
    /// The call's body.
    struct Request {
        struct Receiver {
            var id: String
            var type: String
        }

        struct File {
            var fileId: String
            var name: String
            var mimeType: String?
            var size: Int64?
        }

        var batchId: String
        var receiver: Receiver
        var sender: String?
        var parentMessageId: String?
        var files: [File]

        /// The request a body carries. Message ids are strings on the wire, but a numeric id is the same id.
        ///
        /// - Throws: `MalformedBody` naming the first field that is missing or of the wrong type.
        init(reading fields: JSONFields<MalformedBody>) throws(MalformedBody) {
            batchId = try fields.required(fields.string("batchId"), "batchId")
            let receiver = try fields.required(fields.object("receiver"), "receiver")
            self.receiver = Receiver(
                id: try receiver.required(receiver.string("id"), "id"),
                type: try receiver.required(receiver.string("type"), "type"))
            sender = try fields.string("sender")
            parentMessageId = try fields.idText("parentMessageId")
            var files: [File] = []
            for file in try fields.required(fields.objects("files"), "files") {
                files.append(File(
                    fileId: try file.required(file.string("fileId"), "fileId"),
                    name: try file.required(file.string("name"), "name"),
                    mimeType: try file.string("mimeType"), size: try file.int64("size")))
            }
            self.files = files
        }
    }

    /// The 200 answer's body.
    struct Response: Encodable {
        var files: [Answer]
    }

    /// One file's entry of the answer: a target or a refusal.
    enum Answer: Encodable {
        case target(Target)
        case refusal(Refusal)

        func encode(to encoder: any Encoder) throws {
            switch self {
            case .target(let target): try target.encode(to: encoder)
            case .refusal(let refusal): try refusal.encode(to: encoder)
            }
        }
    }

    /// Where and how to upload a file.
    struct Target: Encodable {
        var fileId: String
        var uploadUrl: String
        var method: String
        var headers: [String: String]
        var fileUrl: String
        var expiresAt: String
    }

    /// A file refused by policy or fault.
    struct Refusal: Encodable {
        var fileId: String
        var error: PresignRefusal
    }
}
