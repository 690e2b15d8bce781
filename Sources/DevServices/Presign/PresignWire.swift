import Foundation

/// The presign call's JSON (`docs/wire-format.md#presign-endpoint`).
enum PresignWire {
    /// The call's body.
    struct Request: Decodable {
        struct Receiver: Decodable {
            var id: String
            var type: String
        }

        struct File: Decodable {
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

        private enum CodingKeys: String, CodingKey {
            case batchId, receiver, sender, parentMessageId, files
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            batchId = try container.decode(String.self, forKey: .batchId)
            receiver = try container.decode(Receiver.self, forKey: .receiver)
            sender = try container.decodeIfPresent(String.self, forKey: .sender)
            // Message ids are strings on the wire, but a numeric id is the same id.
            if let number = try? container.decodeIfPresent(Int64.self, forKey: .parentMessageId) {
                parentMessageId = String(number)
            } else {
                parentMessageId = try container.decodeIfPresent(String.self, forKey: .parentMessageId)
            }
            files = try container.decode([File].self, forKey: .files)
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
