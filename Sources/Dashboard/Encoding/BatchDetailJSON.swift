import WireFormat
import Records

/// A batch's page: its row's fields, then every tracked file (state, bytes, error, attachment), its messages and its
/// timeline, newest first (`GET /api/batches/ID`).
enum BatchDetailJSON {
    static func encode(_ batch: BatchActivity, controls: Bool) -> [UInt8] {
        var json = JSONWriter(capacity: 4096)
        json.object { json in
            BatchRowJSON.writeFields(batch, into: &json)
            json.field("controls", controls)
            json.field("sender", batch.sender)
            json.field("drains", batch.drains)
            json.field("unlistedRejections", batch.unlistedRejections)
            json.field("droppedTimeline", batch.droppedTimeline)
            json.array("fileList", batch.files) { json, file in write(file, into: &json) }
            json.array("messages", batch.messages) { json, message in write(message, into: &json) }
            json.array("timeline", batch.timeline.reversed()) { json, entry in
                json.object { json in
                    json.field("time", entry.time)
                    json.field("kind", entry.kind)
                    json.field("fileId", entry.fileId)
                    json.field("detail", entry.detail)
                    json.field("source", entry.source)
                }
            }
        }
        return json.bytes
    }

    private static func write(_ file: FileActivity, into json: inout JSONWriter) {
        json.object { json in
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
            if let attachment = file.attachment { CloudEventEncoder.write(attachment, into: &json) } else { json.null() }
        }
    }

    private static func write(_ message: MessageActivity, into json: inout JSONWriter) {
        json.object { json in
            json.field("muid", message.muid)
            json.field("messageType", message.messageType)
            json.array("fileIds", message.fileIds) { json, fileId in json.string(fileId) }
            json.field("state", message.state.rawValue)
            json.field("responseId", message.responseId)
            json.field("error", message.problem)
            json.field("attempt", message.attempt)
            json.field("time", message.time)
        }
    }
}
