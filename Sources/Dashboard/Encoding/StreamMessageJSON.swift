import WireFormat

/// The two messages of the dashboard's event stream: `snapshot`, the whole model (the first message of every
/// connection, so a page that reconnects starts over from the truth), and `delta`, what changed since the previous
/// message of that connection.
enum StreamMessageJSON {
    /// The whole model; `now` is the server's clock (milliseconds since 1970), by which the page aligns its charts.
    static func snapshot(_ model: DashboardModel, version: UInt64, now: Int64, controls: Bool) -> [UInt8] {
        var json = JSONWriter(capacity: 256 * model.batches.count + 4096)
        json.beginObject()
        json.field("version", version)
        json.field("now", now)
        json.field("controls", controls)
        json.key("feed")
        PanelJSON.writeFeed(model, into: &json)
        json.key("batches")
        json.beginArray()
        for batch in model.batches.values { BatchRowJSON.write(batch, into: &json) }
        json.endArray()
        writePanels(model, ModelChanges.everything, into: &json)
        json.endObject()
        return json.bytes
    }

    /// The rows of the changed batches, the ids of the forgotten ones and every panel that changed.
    static func delta(_ model: DashboardModel, _ changes: ModelChanges, version: UInt64, now: Int64) -> [UInt8] {
        var json = JSONWriter(capacity: 256 * changes.batches.count + 1024)
        json.beginObject()
        json.field("version", version)
        json.field("now", now)
        if changes.feed {
            json.key("feed")
            PanelJSON.writeFeed(model, into: &json)
        }
        json.key("batches")
        json.beginArray()
        for batchId in changes.batches.sorted() {
            if let batch = model.batches[batchId] { BatchRowJSON.write(batch, into: &json) }
        }
        json.endArray()
        json.key("removed")
        json.beginArray()
        for batchId in changes.removed.sorted() { json.string(batchId) }
        json.endArray()
        writePanels(model, changes, into: &json)
        json.endObject()
        return json.bytes
    }

    private static func writePanels(_ model: DashboardModel, _ changes: ModelChanges, into json: inout JSONWriter) {
        if changes.errors {
            json.key("errors")
            PanelJSON.writeErrors(model.errors, into: &json)
        }
        if changes.throughput {
            json.key("throughput")
            PanelJSON.writeThroughput(model.throughput, into: &json)
        }
        if changes.workers {
            json.key("workers")
            PanelJSON.writeWorkers(model.workers, into: &json)
        }
        if changes.deadLetters {
            json.key("deadLetters")
            PanelJSON.writeDeadLetters(model.deadLetters, into: &json)
        }
    }
}

extension ModelChanges {
    /// Every panel: what a snapshot writes.
    static var everything: ModelChanges {
        var all = ModelChanges()
        all.errors = true
        all.throughput = true
        all.workers = true
        all.deadLetters = true
        all.feed = true
        return all
    }
}
