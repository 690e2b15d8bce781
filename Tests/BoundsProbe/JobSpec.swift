import Foundation
import KafkaIO
import WireFormat

/// A job record as a backend could write it, field by field: what ``EncodedSizeProbe`` runs, built by hand for the
/// worst case or from a fuzzer's bytes.
public struct JobSpec: Sendable {
    /// One entry of `files`.
    public struct File: Sendable {
        /// The entry's `source`: exactly one of these, as the contract allows.
        public enum Source: Sendable {
            case url(String)
            case path(String)
            /// Base64 of these bytes.
            case data(Data)
        }

        /// `fileId`, `name`, `mimeType` and `size` as written; nil leaves the member out.
        public var fileId: String
        public var name: String?
        public var mimeType: String?
        public var size: Int64?
        public var source: Source

        /// An entry with these members.
        public init(fileId: String, name: String? = nil, mimeType: String? = nil, size: Int64? = nil, source: Source) {
            self.fileId = fileId
            self.name = name
            self.mimeType = mimeType
            self.size = size
            self.source = source
        }
    }

    /// The members of the same names; nil leaves a member out (`receiver.type` is always `user`).
    public var batchId: String?
    public var requestId: String?
    public var receiverId = "u1"
    public var sender: String?
    public var parentMessageId: String?
    public var concurrency: Int?
    /// The `files` array, in order.
    public var files: [File] = []
    /// `auto`, `manual` or `none`.
    public var send = "auto"
    /// `message.caption`, `message.metadata` and `message.tags`.
    public var caption: String?
    public var metadata: [String: JSONValue] = [:]
    public var tags: [String] = []
    /// The record key; nil for a record without one.
    public var key: String?
    /// The trace headers' values; nil leaves a header out.
    public var traceparent: String?
    public var tracestate: String?

    /// A job of one receiver and no files.
    public init() {}

    /// The record's value.
    public var value: Data {
        var json = JSONWriter()
        json.beginObject()
        json.field("kind", "upload")
        if let batchId { json.field("batchId", batchId) }
        if let requestId { json.field("requestId", requestId) }
        json.key("receiver")
        json.beginObject()
        json.field("id", receiverId)
        json.field("type", "user")
        json.endObject()
        if let sender { json.field("sender", sender) }
        if let parentMessageId { json.field("parentMessageId", parentMessageId) }
        if let concurrency { json.field("concurrency", concurrency) }
        json.key("files")
        json.beginArray()
        files.forEach { write($0, into: &json) }
        json.endArray()
        json.key("message")
        json.beginObject()
        json.field("send", send)
        if let caption { json.field("caption", caption) }
        json.key("metadata")
        json.value(.object(metadata))
        json.key("tags")
        json.value(.array(tags.map(JSONValue.string)))
        json.endObject()
        json.endObject()
        return Data(json.bytes)
    }

    /// The record's headers: the trace context, when it has one.
    public var headers: [KafkaHeader] {
        [("traceparent", traceparent), ("tracestate", tracestate)].compactMap { name, value in value.map { KafkaHeader(name, $0) } }
    }

    private func write(_ file: File, into json: inout JSONWriter) {
        json.beginObject()
        json.field("fileId", file.fileId)
        if let name = file.name { json.field("name", name) }
        if let mimeType = file.mimeType { json.field("mimeType", mimeType) }
        if let size = file.size { json.field("size", size) }
        json.key("source")
        json.beginObject()
        switch file.source {
        case .url(let url): json.field("url", url)
        case .path(let path): json.field("path", path)
        case .data(let bytes): json.field("data", bytes.base64EncodedString())
        }
        json.endObject()
        json.endObject()
    }
}

extension JobSpec {
    /// Every string at its byte limit, made of `"` (which takes two bytes in JSON), `limits.filesPerJob` files of
    /// long url and path sources, message options at `limits.messageOptionsMax` as encoded, a later-version
    /// `traceparent` header of 256 bytes and a `tracestate` of 512: the largest job the decoder accepts.
    /// `filePrefix` starts every file id, so that two such jobs of one batch bring different files.
    public static func worstCase(filesPerJob: Int = 100, messageOptionsMax: Int = 16 * 1024, filePrefix: String = "") -> JobSpec {
        func quotes(_ count: Int, after prefix: String = "") -> String { prefix + String(repeating: "\"", count: count - prefix.utf8.count) }
        var spec = JobSpec()
        spec.batchId = quotes(128)
        spec.key = spec.batchId
        spec.requestId = quotes(128)
        spec.receiverId = quotes(128)
        spec.sender = quotes(128)
        spec.parentMessageId = quotes(128)
        spec.concurrency = 1000
        spec.files = (0..<filesPerJob).map { index in
            File(fileId: quotes(128, after: "\(filePrefix)\(index)-"), name: String(repeating: "\"", count: 251) + ".jpg",
                 mimeType: quotes(255, after: "image/jpeg; q="), size: 1,
                 source: index.isMultiple(of: 2) ? .url(quotes(8 * 1024, after: "https://files.example.com/"))
                                                 : .path(quotes(4 * 1024, after: "inbox/")))
        }
        spec.send = "auto"
        // {"caption":"…","metadata":{},"tags":[]} as the decoder measures it: 38 bytes besides the caption's.
        spec.caption = String(repeating: "\"", count: (messageOptionsMax - 38) / 2)
        spec.traceparent = "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-" + String(repeating: "x", count: 256 - 56)
        spec.tracestate = String(repeating: "\"", count: 512)
        return spec
    }
}
