import Foundation
import UploadEngine
import WireFormat

/// Turns a jobs-topic record into a `JobCommand`, or says why the record is invalid as a whole.
///
/// Job-level problems (not JSON, unknown `kind`, bad `receiver`, `batchId` or `requestId`, no `files` array, bad
/// `message`) make the record invalid, and so do the bounds of `docs/contract.md`: more than `limits.filesPerJob`
/// files, `message` options over `limits.messageOptionsMax`, a control character in a field that reaches a header. A problem with one file only marks that file's source malformed, so the
/// engine rejects it alone with `ERR_INVALID_FILE_OBJECT` while the rest of the job proceeds.
public struct JobDecoder: Sendable {
    public var limits: UploadLimits

    public init(limits: UploadLimits) {
        self.limits = limits
    }

    /// Where a record came from; it supplies the default `requestId` and `batchId`.
    public struct Provenance: Sendable, Hashable {
        public var topic: String
        public var partition: Int32
        public var offset: Int64
        public var key: String?

        public init(topic: String, partition: Int32, offset: Int64, key: String?) {
            self.topic = topic
            self.partition = partition
            self.offset = offset
            self.key = key
        }
    }

    /// Decodes one record value; never throws, an invalid record comes back as the failure with its reason.
    public func decode(_ value: some ContiguousBytes & Sendable, from provenance: Provenance) -> Result<JobCommand, InvalidJob> {
        let root: JSONValue
        do {
            root = try value.withUnsafeBytes { buffer in try JSONParser.parse(buffer) }
        } catch {
            return .failure(InvalidJob("the record is not valid JSON"))
        }
        return Result { () throws(InvalidJob) in try command(from: RawRecord(reading: root), provenance: provenance) }
    }

    private func command(from record: RawRecord, provenance: Provenance) throws(InvalidJob) -> JobCommand {
        let kind = record.kind ?? "upload"
        let batchId = try resolveBatchId(record.batchId, key: provenance.key, generateIfMissing: kind == "upload")
        switch kind {
        case "upload":
            return .upload(try uploadJob(from: record, batchId: batchId, provenance: provenance))
        case "retry":
            return .retry(batchId: batchId, fileId: try controlFileId(record.fileId))
        case "remove":
            return .remove(batchId: batchId, fileId: try controlFileId(record.fileId))
        case "clear":
            return .clear(batchId: batchId)
        case "send":
            return .send(batchId: batchId)
        case "configure":
            guard let concurrency = record.concurrency, (1...1000).contains(concurrency) else {
                throw InvalidJob("configure needs concurrency between 1 and 1000")
            }
            return .configure(batchId: batchId, concurrency: concurrency)
        default:
            throw InvalidJob("unknown kind '\(kind.prefix(64))'")
        }
    }

    private func uploadJob(from record: RawRecord, batchId: String, provenance: Provenance) throws(InvalidJob) -> UploadJob {
        let requestId = record.requestId ?? "\(provenance.topic)/\(provenance.partition)/\(provenance.offset)"
        guard UploadBatch.isValidIdentifier(requestId) else { throw InvalidJob("requestId must be 1–128 printable characters") }
        guard let receiver = record.receiver else { throw InvalidJob("receiver is required") }
        guard let receiverId = receiver.id, !Self.isBlank(receiverId) else {
            throw InvalidJob("receiver.id must be a non-empty string")
        }
        guard let type = receiver.type.flatMap(Receiver.Kind.init(rawValue:)) else { throw InvalidJob("receiver.type must be user or group") }
        try Self.requireHeaderSafe(["requestId": requestId, "receiver.id": receiverId, "sender": record.sender,
                                    "parentMessageId": record.parentMessageId])
        guard let files = record.files else { throw InvalidJob("files must be an array") }
        guard files.count <= limits.filesPerJob else {
            throw InvalidJob("files lists \(files.count) entries; a job may list at most \(limits.filesPerJob) (limits.filesPerJob)")
        }
        if let concurrency = record.concurrency, !(1...1000).contains(concurrency) {
            throw InvalidJob("concurrency must be between 1 and 1000")
        }
        var message = MessageOptions()
        if let raw = record.message {
            guard let send = MessageOptions.SendMode(rawValue: raw.send ?? "auto") else {
                throw InvalidJob("message.send must be auto, manual or none")
            }
            message = MessageOptions(send: send, caption: raw.caption, metadata: raw.metadata ?? [:], tags: raw.tags ?? [])
        }
        let optionsSize = Self.encodedSize(of: message)
        guard optionsSize <= limits.messageOptionsMax else {
            throw InvalidJob("message (caption, metadata, tags) takes \(optionsSize) bytes as encoded; at most \(limits.messageOptionsMax) are allowed (limits.messageOptionsMax)")
        }
        return UploadJob(requestId: requestId, batchId: batchId, receiver: Receiver(id: receiverId, type: type),
                         sender: record.sender, parentMessageId: record.parentMessageId, concurrency: record.concurrency,
                         files: files.enumerated().map { index, entry in
                             var item = fileItem(entry, stripLocation: record.stripLocation)
                             // Inline bytes stay in this record: a snapshot keeps where, and a new owner reads them back.
                             if case .data = item.source {
                                 item.origin = RecordOrigin(partition: provenance.partition, offset: provenance.offset, index: index)
                             }
                             return item
                         }, message: message)
    }

    /// Fields that travel in HTTP or Kafka headers (`onBehalfOf`, the presign call, event headers) must hold no
    /// control character: a line break there would add a header of the sender's choosing.
    private static func requireHeaderSafe(_ fields: KeyValuePairs<String, String?>) throws(InvalidJob) {
        for case (let name, let value?) in fields where !HeaderSafety.isSafe(value) {
            throw InvalidJob("\(name) must not contain control characters")
        }
    }

    /// The bytes a job's message options take as the worker keeps and sends them: caption, metadata and tags as JSON.
    static func encodedSize(of message: MessageOptions) -> Int {
        var json = JSONWriter()
        json.beginObject()
        if let caption = message.caption { json.field("caption", caption) }
        json.key("metadata")
        json.value(.object(message.metadata))
        json.key("tags")
        json.value(.array(message.tags.map(JSONValue.string)))
        json.endObject()
        return json.bytes.count
    }

    private func resolveBatchId(_ field: String?, key: String?, generateIfMissing: Bool) throws(InvalidJob) -> String {
        if let field {
            guard UploadBatch.isValidIdentifier(field) else { throw InvalidJob("batchId must be 1–128 printable characters") }
            return field
        }
        if let key, !key.isEmpty {
            guard UploadBatch.isValidIdentifier(key) else { throw InvalidJob("the record key, used as batchId, must be 1–128 printable characters") }
            return key
        }
        guard generateIfMissing else { throw InvalidJob("batchId is required (field or record key)") }
        return UUID().uuidString.lowercased()
    }

    private func controlFileId(_ fileId: String?) throws(InvalidJob) -> String {
        guard let fileId, UploadBatch.isValidIdentifier(fileId) else { throw InvalidJob("fileId must be 1–128 printable characters") }
        return fileId
    }

    /// A file entry becomes a `FileItem`; whatever is wrong with it is left for the engine to reject.
    private func fileItem(_ entry: RawFileEntry, stripLocation jobSetting: Bool?) -> FileItem {
        let file: RawFile
        switch entry {
        case .file(let readable): file = readable
        case .broken(let fileId):
            return FileItem(fileId: fileId ?? "", name: "file", source: .malformed("the file entry is not a valid object"))
        }
        let source = self.source(of: file.source)
        let name = file.name ?? Self.defaultName(for: source)
        return FileItem(fileId: file.fileId ?? "", name: name, mimeType: file.mimeType, declaredSize: file.size, source: source,
                        stripLocation: file.stripLocation ?? jobSetting)
    }

    private func source(of raw: RawSource?) -> FileSource {
        guard let raw else { return .malformed("source is required") }
        let given = [raw.url != nil, raw.path != nil, raw.data != nil].filter { $0 }.count
        guard given == 1 else { return .malformed("source must have exactly one of url, path, data") }
        if let url = raw.url { return .url(url) }
        if let path = raw.path { return .path(path) }
        let encoded = raw.data ?? ""
        // Base64 carries 3 bytes per 4 characters: refuse oversized data before decoding it. The slack of 2 bytes
        // for padding saturates rather than overflow when inlineMax is near Int64.max.
        let estimate = Int64(encoded.utf8.count / 4 * 3)
        let (allowance, overflow) = limits.inlineMax.addingReportingOverflow(2)
        if estimate > (overflow ? Int64.max : allowance) {
            return .oversizedData(byteCount: estimate)
        }
        guard let bytes = Data(base64Encoded: encoded) else { return .malformed("source.data is not valid base64") }
        return .data(bytes)
    }

    /// True when `text` is empty or only what `CharacterSet.whitespaces` trims: tabs, space separators and U+200B
    /// ZERO WIDTH SPACE. Checked without Foundation or a trimmed copy, since it runs for every job.
    static func isBlank(_ text: String) -> Bool {
        !text.unicodeScalars.contains { scalar in
            scalar.isASCII
                ? scalar != " " && scalar != "\t"
                : scalar != "\u{200B}" && scalar.properties.generalCategory != .spaceSeparator
        }
    }

    static func defaultName(for source: FileSource) -> String {
        let candidate: Substring? = switch source {
        case .url(let url): URL(string: url)?.path.split(separator: "/").last
        case .path(let path): path.split(separator: "/").last
        default: nil
        }
        return candidate.map(String.init) ?? "file"
    }
}
