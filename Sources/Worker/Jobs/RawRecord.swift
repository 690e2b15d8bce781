import UploadEngine

/// The JSON shape of a jobs-topic record, decoded leniently: every field optional, files one by one.
struct RawRecord: Decodable {
    var kind: String?
    var requestId: String?
    var batchId: String?
    var receiver: RawReceiver?
    var sender: String?
    var parentMessageId: StringOrNumber?
    var concurrency: Int?
    var fileId: String?
    var files: [LenientFile]?
    var message: RawMessage?
    /// Remove location metadata from this job's images (files may say otherwise); absent: the worker's setting.
    var stripLocation: Bool?
}

struct RawReceiver: Decodable {
    var id: String?
    var type: String?
}

struct RawMessage: Decodable {
    var send: String?
    var caption: String?
    var metadata: [String: JSONValue]?
    var tags: [String]?
}

struct RawFile: Decodable {
    var fileId: String?
    var name: String?
    var mimeType: String?
    var size: Int64?
    var source: RawSource?
    var stripLocation: Bool?
}

struct RawSource: Decodable {
    var url: String?
    var path: String?
    var data: String?
}

/// A file entry whose own problems stay its own: decoding never fails, the result says what happened.
struct LenientFile: Decodable {
    let result: Result<RawFile, any Error>
    /// The id, when one could be read even though the rest is broken (so the rejection names the file).
    let fileId: String?

    private struct IdOnly: Decodable { var fileId: String? }

    init(from decoder: any Decoder) throws {
        do {
            result = .success(try RawFile(from: decoder))
        } catch {
            result = .failure(error)
        }
        fileId = (try? IdOnly(from: decoder))?.fileId
    }
}

/// Message ids are strings in CometChat's API, but backends often send numbers.
struct StringOrNumber: Decodable {
    let text: String
    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int64.self) {
            text = String(number)
        } else {
            text = try container.decode(String.self)
        }
    }
}
