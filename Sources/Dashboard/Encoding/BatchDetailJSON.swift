import WireFormat

/// A batch's page: its row's fields, then every tracked file (state, bytes, error, attachment), its messages and its
/// timeline (`GET /api/batches/ID`).
enum BatchDetailJSON {
    static func encode(_ batch: BatchActivity, controls: Bool) -> [UInt8] {
        var json = JSONWriter(capacity: 4096)
        json.beginObject()
        BatchRowJSON.writeFields(batch, into: &json)
        json.field("controls", controls)
        json.field("sender", batch.sender)
        json.field("drains", batch.drains)
        json.field("unlistedRejections", batch.unlistedRejections)
        json.field("droppedTimeline", batch.droppedTimeline)
        json.key("fileList")
        json.beginArray()
        for file in batch.files { write(file, into: &json) }
        json.endArray()
        json.key("messages")
        json.beginArray()
        for message in batch.messages { write(message, into: &json) }
        json.endArray()
        json.key("timeline")
        json.beginArray()
        for entry in batch.timeline.reversed() {
            json.beginObject()
            json.field("time", entry.time)
            json.field("kind", entry.kind)
            json.field("fileId", entry.fileId)
            json.field("detail", entry.detail)
            json.field("source", entry.source)
            json.endObject()
        }
        json.endArray()
        json.endObject()
        return json.bytes
    }

    private static func write(_ file: FileActivity, into json: inout JSONWriter) {
        json.beginObject()
        json.field("fileId", file.fileId)
        json.field("name", file.name)
        json.field("mimeType", file.mimeType)
        json.field("state", file.state.rawValue)
        json.field("loaded", file.loaded)
        json.field("total", file.total)
        json.field("percent", file.percent)
        json.field("attempt", file.attempt)
        json.field("error", file.problem)
        json.key("attachment")
        if let attachment = file.attachment {
            json.beginObject()
            json.field("name", attachment.name)
            json.field("url", attachment.url)
            json.field("mimeType", attachment.mimeType)
            json.field("type", attachment.type)
            json.field("size", attachment.size)
            json.field("sha256", attachment.sha256)
            json.endObject()
        } else {
            json.null()
        }
        json.endObject()
    }

    private static func write(_ message: MessageActivity, into json: inout JSONWriter) {
        json.beginObject()
        json.field("muid", message.muid)
        json.field("messageType", message.messageType)
        json.key("fileIds")
        json.beginArray()
        for fileId in message.fileIds { json.string(fileId) }
        json.endArray()
        json.field("state", message.state.rawValue)
        json.field("responseId", message.responseId)
        json.field("error", message.problem)
        json.field("attempt", message.attempt)
        json.field("time", message.time)
        json.endObject()
    }
}
