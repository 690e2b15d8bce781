import WireFormat

/// A batch as one row of the live table: what the table shows and filters on, kept small because the first
/// message of a stream carries every row (about 200 bytes each).
///
/// `files` counts the files by state in ``FileProgressState/allCases`` order (queued, uploading, uploaded,
/// retrying, failed, rejected, removed); times are milliseconds since 1970.
enum BatchRowJSON {
    static func write(_ batch: BatchActivity, into json: inout JSONWriter) {
        json.object { json in writeFields(batch, into: &json) }
    }

    /// The row's fields, without the braces: the batch page's object starts with them.
    static func writeFields(_ batch: BatchActivity, into json: inout JSONWriter) {
        json.field("id", batch.batchId)
        json.field("receiver", batch.receiverId)
        json.field("receiverType", batch.receiverType)
        json.field("tenant", batch.tenant)
        json.field("status", batch.isInProgress ? "in-progress" : "idle")
        let counts = batch.counts
        json.array("files", FileProgressState.allCases) { json, state in json.int(counts[state] ?? 0) }
        let bytes = batch.bytes
        json.field("loaded", bytes.loaded)
        json.field("total", bytes.total)
        json.field("created", batch.created)
        json.field("updated", batch.updated)
        json.field("last", batch.lastKind)
        json.array("codes", batch.errorCodes.sorted()) { json, code in json.string(code) }
        json.field("sent", batch.messages.filter { $0.state == .sent }.count)
        json.field("untracked", batch.untrackedFiles)
    }
}
