import WireFormat

/// The panels beside the table — errors by code, throughput per worker, workers seen, dead letters, how far the feed
/// read — each written whole: they are bounded and small, so a change sends the panel again rather than a diff.
enum PanelJSON {
    static func writeErrors(_ errors: ErrorTally, into json: inout JSONWriter) {
        json.beginObject()
        json.key("totals")
        json.beginArray()
        for (code, count) in errors.totals.sorted(by: { ($1.value, $0.key) < ($0.value, $1.key) }) {
            json.beginObject()
            json.field("code", code)
            json.field("count", count)
            json.field("kind", errors.kinds[code]?.rawValue ?? "failed")
            json.endObject()
        }
        json.endArray()
        json.key("buckets")
        json.beginArray()
        for (bucket, counts) in errors.buckets.sorted(by: { $0.key < $1.key }) {
            json.beginObject()
            json.field("time", bucket * ErrorTally.bucketMilliseconds)
            json.key("counts")
            json.beginObject()
            for (code, count) in counts.sorted(by: { $0.key < $1.key }) { json.field(code, count) }
            json.endObject()
            json.endObject()
        }
        json.endArray()
        json.key("latest")
        json.beginArray()
        for note in errors.latest.reversed() {
            json.beginObject()
            json.field("kind", note.kind.rawValue)
            json.field("time", note.time)
            json.field("batchId", note.batchId)
            json.field("subject", note.subject)
            json.field("code", note.code)
            json.field("message", note.message)
            json.field("willRetry", note.willRetry)
            json.field("source", note.source.map(DashboardModel.workerName))
            json.endObject()
        }
        json.endArray()
        json.endObject()
    }

    /// Every worker's buckets as `[time, files, bytes]`; the page draws the fifteen minutes before its clock.
    static func writeThroughput(_ throughput: ThroughputWindow, into json: inout JSONWriter) {
        json.beginObject()
        json.field("bucket", ThroughputWindow.bucketMilliseconds)
        json.key("workers")
        json.beginArray()
        for (source, tallies) in throughput.sources.sorted(by: { $0.key < $1.key }) {
            json.beginObject()
            json.field("source", source)
            json.key("buckets")
            json.beginArray()
            for (bucket, tally) in tallies.sorted(by: { $0.key < $1.key }) {
                json.beginArray()
                json.int(bucket * ThroughputWindow.bucketMilliseconds)
                json.int(tally.files)
                json.int(tally.bytes)
                json.endArray()
            }
            json.endArray()
            json.endObject()
        }
        json.endArray()
        json.endObject()
    }

    static func writeWorkers(_ roster: WorkerRoster, into json: inout JSONWriter) {
        json.beginArray()
        for worker in roster.workers.values.sorted(by: { ($1.lastSeen, $0.source) < ($0.lastSeen, $1.source) }) {
            json.beginObject()
            json.field("source", worker.source)
            json.field("firstSeen", worker.firstSeen)
            json.field("lastSeen", worker.lastSeen)
            json.field("events", worker.events)
            json.endObject()
        }
        json.endArray()
    }

    static func writeDeadLetters(_ shelf: DeadLetterShelf, into json: inout JSONWriter) {
        json.beginArray()
        for entry in shelf.entries.reversed() {
            json.beginObject()
            json.field("provenance", entry.provenance)
            json.field("time", entry.time)
            json.field("key", entry.key)
            json.field("error", entry.error)
            json.field("outcome", entry.outcome)
            json.field("copy", entry.copy)
            json.field("preview", entry.preview)
            json.endObject()
        }
        json.endArray()
    }

    static func writeFeed(_ model: DashboardModel, into json: inout JSONWriter) {
        json.beginObject()
        json.field("events", model.feed.events)
        json.field("jobs", model.feed.jobs)
        json.field("deadLetters", model.feed.deadLetters)
        json.field("caughtUp", model.feed.caughtUp)
        json.field("batches", model.batches.count)
        json.field("maxBatches", model.limits.maxBatches)
        json.field("evicted", model.evicted)
        json.endObject()
    }
}
