import WireFormat

/// The panels beside the table — errors by code, throughput per worker, workers seen, dead letters, how far the feed
/// read — each written whole: they are bounded and small, so a change sends the panel again rather than a diff.
enum PanelJSON {
    static func writeErrors(_ errors: ErrorTally, into json: inout JSONWriter) {
        json.object { json in
            json.array("totals", errors.totals.sorted { ($1.value, $0.key) < ($0.value, $1.key) }) { json, total in
                json.object { json in
                    json.field("code", total.key)
                    json.field("count", total.value)
                    json.field("kind", errors.kinds[total.key]?.rawValue ?? "failed")
                }
            }
            json.array("buckets", errors.buckets.sorted { $0.key < $1.key }) { json, bucket in
                json.object { json in
                    json.field("time", bucket.key * ErrorTally.bucketMilliseconds)
                    json.key("counts")
                    json.object { json in for (code, count) in bucket.value.sorted(by: { $0.key < $1.key }) { json.field(named: code, count) } }
                }
            }
            json.array("latest", errors.latest.reversed()) { json, note in
                json.object { json in
                    json.field("kind", note.kind.rawValue)
                    json.field("time", note.time)
                    json.field("batchId", note.batchId)
                    json.field("subject", note.subject)
                    json.field("code", note.code)
                    json.field("message", note.message)
                    json.field("willRetry", note.willRetry)
                    json.field("source", note.source.map(DashboardModel.workerName))
                }
            }
        }
    }

    /// Every worker's buckets as `[time, files, bytes]`; the page draws the fifteen minutes before its clock.
    static func writeThroughput(_ throughput: ThroughputWindow, into json: inout JSONWriter) {
        json.object { json in
            json.field("bucket", ThroughputWindow.bucketMilliseconds)
            json.array("workers", throughput.sources.sorted { $0.key < $1.key }) { json, source in
                json.object { json in
                    json.field("source", source.key)
                    json.array("buckets", source.value.sorted { $0.key < $1.key }) { json, bucket in
                        json.beginArray()
                        json.int(bucket.key * ThroughputWindow.bucketMilliseconds)
                        json.int(bucket.value.files)
                        json.int(bucket.value.bytes)
                        json.endArray()
                    }
                }
            }
        }
    }

    static func writeWorkers(_ roster: WorkerRoster, into json: inout JSONWriter) {
        json.beginArray()
        for worker in roster.workers.values.sorted(by: { ($1.lastSeen, $0.source) < ($0.lastSeen, $1.source) }) {
            json.object { json in
                json.field("source", worker.source)
                json.field("firstSeen", worker.firstSeen)
                json.field("lastSeen", worker.lastSeen)
                json.field("events", worker.events)
            }
        }
        json.endArray()
    }

    static func writeDeadLetters(_ shelf: DeadLetterShelf, into json: inout JSONWriter) {
        json.beginArray()
        for entry in shelf.entries.reversed() {
            json.object { json in
                json.field("provenance", entry.provenance)
                json.field("time", entry.time)
                json.field("key", entry.key)
                json.field("error", entry.error)
                json.field("outcome", entry.outcome)
                json.field("copy", entry.copy)
                json.field("preview", entry.preview)
            }
        }
        json.endArray()
    }

    static func writeFeed(_ model: DashboardModel, into json: inout JSONWriter) {
        json.object { json in
            json.field("events", model.feed.events)
            json.field("jobs", model.feed.jobs)
            json.field("deadLetters", model.feed.deadLetters)
            json.field("caughtUp", model.feed.caughtUp)
            json.field("batches", model.batches.count)
            json.field("maxBatches", model.limits.maxBatches)
            json.field("evicted", model.evicted)
        }
    }
}
