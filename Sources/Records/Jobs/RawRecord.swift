import WireFormat

/// The shape of a jobs-topic record: every field optional, only JSON types checked; meaning is checked later.
///
/// Fields are read in declaration order, so the first wrong type in that order is the one reported.
struct RawRecord {
    var kind: String?
    var requestId: String?
    var batchId: String?
    var receiver: RawReceiver?
    var sender: String?
    /// Text, also when the record gave a number.
    var parentMessageId: String?
    var tenant: String?
    var concurrency: Int?
    var fileId: String?
    /// One entry per file, each read on its own so that a broken file leaves the others alone.
    var files: [RawFileEntry]?
    var message: RawMessage?
    /// Remove location metadata from this job's images (files may say otherwise); absent: the worker's setting.
    var stripLocation: Bool?

    /// Reads a parsed record; a wrong type in a record, receiver or message field makes the record invalid.
    init(reading root: JSONValue) throws(InvalidJob) {
        let fields = try RecordFields.record(root)
        kind = try fields.string("kind")
        requestId = try fields.string("requestId")
        batchId = try fields.string("batchId")
        receiver = try fields.object("receiver").map { fields throws(InvalidJob) in try RawReceiver(reading: fields) }
        sender = try fields.string("sender")
        parentMessageId = try fields.idText("parentMessageId")
        tenant = try fields.string("tenant")
        concurrency = try fields.int("concurrency")
        fileId = try fields.string("fileId")
        files = try fields.array("files")?.map(RawFileEntry.init(reading:))
        message = try fields.object("message").map { fields throws(InvalidJob) in try RawMessage(reading: fields) }
        stripLocation = try fields.bool("stripLocation")
    }
}

/// The `receiver` object of a record.
struct RawReceiver {
    var id: String?
    var type: String?

    init(reading fields: RecordFields) throws(InvalidJob) {
        id = try fields.string("id")
        type = try fields.string("type")
    }
}

/// The `message` object of a record.
struct RawMessage {
    var send: String?
    var caption: String?
    var metadata: [String: JSONValue]?
    var tags: [String]?

    init(reading fields: RecordFields) throws(InvalidJob) {
        send = try fields.string("send")
        caption = try fields.string("caption")
        metadata = try fields.freeObject("metadata")
        tags = try fields.strings("tags")
    }
}
