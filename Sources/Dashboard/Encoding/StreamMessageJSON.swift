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
        json.array("batches", model.batches.values) { json, batch in BatchRowJSON.write(batch, into: &json) }
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
        json.array("batches", changes.batches.sorted().compactMap { model.batches[$0] }) { json, batch in
            BatchRowJSON.write(batch, into: &json)
        }
        json.array("removed", changes.removed.sorted()) { json, batchId in json.string(batchId) }
        writePanels(model, changes, into: &json)
        json.endObject()
        return json.bytes
    }

    private static func writePanels(_ model: DashboardModel, _ changes: ModelChanges, into json: inout JSONWriter) {
        let panels: [(changed: Bool, name: String, write: (inout JSONWriter) -> Void)] = [
            (changes.errors, "errors", { PanelJSON.writeErrors(model.errors, into: &$0) }),
            (changes.throughput, "throughput", { PanelJSON.writeThroughput(model.throughput, into: &$0) }),
            (changes.workers, "workers", { PanelJSON.writeWorkers(model.workers, into: &$0) }),
            (changes.deadLetters, "deadLetters", { PanelJSON.writeDeadLetters(model.deadLetters, into: &$0) }),
        ]
        for panel in panels where panel.changed {
            json.key(named: panel.name)
            panel.write(&json)
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
