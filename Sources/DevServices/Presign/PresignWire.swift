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
    struct Response {
        var files: [Answer]

        /// The body as JSON.
        var json: JSONValue { ["files": .array(files.map(\.json))] }
    }

    /// One file's entry of the answer: a target or a refusal.
    enum Answer {
        case target(Target)
        case refusal(Refusal)

        /// The entry as JSON.
        var json: JSONValue {
            switch self {
            case .target(let target): target.json
            case .refusal(let refusal): refusal.json
            }
        }
    }

    /// Where and how to upload a file.
    struct Target {
        var fileId: String
        var uploadUrl: String
        var method: String
        var headers: [String: String]
        var fileUrl: String
        var expiresAt: String

        /// The target as JSON.
        var json: JSONValue {
            ["fileId": .string(fileId), "uploadUrl": .string(uploadUrl), "method": .string(method),
             "headers": .object(headers.mapValues(JSONValue.string)), "fileUrl": .string(fileUrl), "expiresAt": .string(expiresAt)]
        }
    }

    /// A file refused by policy or fault.
    struct Refusal {
        var fileId: String
        var error: PresignRefusal

        /// The refusal as JSON.
        var json: JSONValue {
            ["fileId": .string(fileId), "error": ["code": .string(error.code), "message": .string(error.message)]]
        }
    }
}
