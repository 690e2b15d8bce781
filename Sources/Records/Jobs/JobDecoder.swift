import Foundation
import KafkaIO
import UploadEngine
import WireFormat

/// Turns a jobs-topic record into a `JobCommand`, or says why the record is invalid as a whole.
///
/// Job-level problems (not JSON, unknown `kind`, bad `receiver`, `batchId` or `requestId`, no `files` array, bad
/// `message`) make the record invalid, and so do the bounds of DESIGN §2.1: more than `limits.filesPerJob` files,
/// `message` options over `limits.messageOptionsMax`, a job-level string over its ``RecordField`` limit or holding a
/// character its rule forbids. A problem with one file only marks that file's source malformed, so the engine rejects
/// it alone with `ERR_INVALID_FILE_OBJECT` while the rest of the job proceeds. This is the one place a record's strings
/// are checked: what it lets through is bounded for every encoder downstream.
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

    /// A record decoded: what it asks for, and whether it arrived under its batch's key.
    public struct Decoded: Sendable, Hashable {
        /// What the record asks for.
        public var command: JobCommand
        /// The record names a `batchId` that its key is not (or it has no key): it belongs on the partition of that
        /// key, so it is re-keyed there rather than applied where it is (DESIGN §2.1 "A job's record key is its batchId").
        public var needsRekey: Bool
    }

    /// The namespace of the batch ids made from a record's position, for a job with neither key nor `batchId`.
    static let positionNamespace = NameBasedUUID.make(namespace: NameBasedUUID.messageNamespace, name: "attache.jobs.position")

    /// Decodes one record value; never throws, an invalid record comes back as the failure with its reason.
    public func decode(_ value: some ContiguousBytes & Sendable, from provenance: Provenance) -> Result<JobCommand, InvalidJob> {
        decode(value, headers: [], from: provenance).map(\.command)
    }

    /// Decodes one record: its value, and the trace context its `traceparent` / `tracestate` headers carry (within
    /// their ``RecordField`` limits, else ignored), which goes with every file of an upload job.
    public func decode(_ value: some ContiguousBytes & Sendable, headers: [KafkaHeader],
                       from provenance: Provenance) -> Result<Decoded, InvalidJob> {
        let root: JSONValue
        do {
            root = try value.withUnsafeBytes { buffer in try JSONParser.parse(buffer) }
        } catch {
            return .failure(InvalidJob("the record is not valid JSON"))
        }
        return Result { () throws(InvalidJob) in
            try command(from: RawRecord(reading: root), trace: TraceContext(kafkaHeaders: headers), provenance: provenance)
        }
    }

    private func command(from record: RawRecord, trace: TraceContext?, provenance: Provenance) throws(InvalidJob) -> Decoded {
        let kind = record.kind ?? "upload"
        let batchId = try resolveBatchId(record.batchId, provenance: provenance, generateIfMissing: kind == "upload")
        // Compared as bytes: the partitioner hashes bytes, and two strings Swift holds equal can differ in them.
        let needsRekey = record.batchId != nil && !(provenance.key.map { $0.utf8.elementsEqual(batchId.utf8) } ?? false)
        return Decoded(command: try command(kind, from: record, batchId: batchId, trace: trace, provenance: provenance),
                       needsRekey: needsRekey)
    }

    private func command(_ kind: String, from record: RawRecord, batchId: String, trace: TraceContext?,
                         provenance: Provenance) throws(InvalidJob) -> JobCommand {
        switch kind {
        case "upload":
            return .upload(try uploadJob(from: record, batchId: batchId, trace: trace, provenance: provenance))
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

    private func uploadJob(from record: RawRecord, batchId: String, trace: TraceContext?,
                           provenance: Provenance) throws(InvalidJob) -> UploadJob {
        try Self.require(record.requestId, as: .requestId)
        // The default is the worker's, bounded by Kafka's 249-character topic names.
        let requestId = record.requestId ?? "\(provenance.topic)/\(provenance.partition)/\(provenance.offset)"
        guard let receiver = record.receiver else { throw InvalidJob("receiver is required") }
        guard let receiverId = receiver.id else { throw InvalidJob("receiver.id must be a non-empty string") }
        try Self.require(receiverId, as: .receiverId)
        guard let type = receiver.type.flatMap(Receiver.Kind.init(rawValue:)) else { throw InvalidJob("receiver.type must be user or group") }
        try Self.require(record.sender, as: .sender)
        try Self.require(record.parentMessageId, as: .parentMessageId)
        try Self.require(record.tenant, as: .tenant)
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
                         sender: record.sender, parentMessageId: record.parentMessageId, tenant: record.tenant,
                         concurrency: record.concurrency,
                         files: files.enumerated().map { index, entry in
                             var item = fileItem(entry, stripLocation: record.stripLocation)
                             // Inline bytes stay in this record: a snapshot keeps where, and a new owner reads them back.
                             if case .data = item.source {
                                 item.origin = RecordOrigin(partition: provenance.partition, offset: provenance.offset, index: index)
                             }
                             // The job's trace context goes with its files: their events and HTTP calls carry it.
                             item.trace = trace
                             return item
                         }, message: message)
    }

    /// A job-level field, when the record has it, within its ``RecordField`` limit and rule; else the record is invalid.
    private static func require(_ value: String?, as field: RecordField, label: String? = nil) throws(InvalidJob) {
        if let value, let problem = field.problem(with: value, label: label) { throw InvalidJob(problem) }
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
        return json.byteCount
    }

    /// The field, else the record key, else — for a job only — a name-based UUID of the record's position, so that
    /// a replay of the record finds the same batch.
    private func resolveBatchId(_ field: String?, provenance: Provenance, generateIfMissing: Bool) throws(InvalidJob) -> String {
        if let field {
            try Self.require(field, as: .batchId)
            return field
        }
        if let key = provenance.key, !key.isEmpty {
            try Self.require(key, as: .batchId, label: "the record key, used as batchId,")
            return key
        }
        guard generateIfMissing else { throw InvalidJob("batchId is required (field or record key)") }
        return NameBasedUUID.string(namespace: Self.positionNamespace,
                                    joining: [provenance.topic, String(provenance.partition), String(provenance.offset)])
    }

    private func controlFileId(_ fileId: String?) throws(InvalidJob) -> String {
        guard let fileId else { throw InvalidJob("fileId is required") }
        try Self.require(fileId, as: .fileId)
        return fileId
    }

    /// A file entry becomes a `FileItem`. Whatever is wrong with it becomes a malformed source, for the engine to
    /// reject alone; what the item keeps of a field over its limit is cut to the limit, so the rejection, its event
    /// and the batch's snapshot stay bounded.
    private func fileItem(_ entry: RawFileEntry, stripLocation jobSetting: Bool?) -> FileItem {
        let file: RawFile
        switch entry {
        case .file(let readable): file = readable
        case .broken(let fileId):
            return FileItem(fileId: RecordField.fileId.bounded(fileId ?? ""), name: "file",
                            source: .malformed("the file entry is not a valid object"))
        }
        let fileId = file.fileId ?? ""
        let source = self.source(of: file.source)
        let name = file.name ?? Self.defaultName(for: source)
        let problem = RecordField.fileId.problem(with: fileId) ?? RecordField.name.problem(with: name)
            ?? file.mimeType.flatMap { RecordField.mimeType.problem(with: $0) }
        guard let problem else {
            return FileItem(fileId: fileId, name: name, mimeType: file.mimeType, declaredSize: file.size, source: source,
                            stripLocation: file.stripLocation ?? jobSetting)
        }
        // Empty data is the first intake rule (DESIGN §3), ahead of a bad id or name: the engine still sees it.
        let emptyData = if case .data(let bytes) = source { bytes.isEmpty } else { false }
        return FileItem(fileId: RecordField.fileId.bounded(fileId), name: RecordField.name.bounded(name),
                        declaredSize: file.size, source: emptyData ? source : .malformed(problem))
    }

    private func source(of raw: RawSource?) -> FileSource {
        guard let raw else { return .malformed("source is required") }
        let given = [raw.url != nil, raw.path != nil, raw.data != nil].filter { $0 }.count
        guard given == 1 else { return .malformed("source must have exactly one of url, path, data") }
        if let url = raw.url { return RecordField.url.problem(with: url).map(FileSource.malformed) ?? .url(url) }
        if let path = raw.path { return RecordField.path.problem(with: path).map(FileSource.malformed) ?? .path(path) }
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

    /// The last segment of a url or path source, else `file`. A segment longer than a name may be keeps its end,
    /// where the extension is: the job did not choose it, so it is not refused for its length.
    static func defaultName(for source: FileSource) -> String {
        let candidate: Substring? = switch source {
        case .url(let url): URL(string: url)?.path.split(separator: "/").last
        case .path(let path): path.split(separator: "/").last
        default: nil
        }
        guard let candidate else { return "file" }
        var kept = candidate.unicodeScalars[...]
        var size = candidate.utf8.count
        while size > RecordField.name.maxBytes, let first = kept.first {
            size -= UTF8.width(first)
            kept.removeFirst()
        }
        return String(String.UnicodeScalarView(kept))
    }
}
