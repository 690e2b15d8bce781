import Foundation
import Records
import WireFormat

/// What `attache watch` shows on a terminal: one progress bar per file (name, percent, bytes, rate, state, error
/// code) and a line per message and per drain. Pure: fed events with the time they were read, it renders lines that
/// fit a given width; the command draws them.
public struct ProgressBoard: Sendable {
    /// One file's bar.
    public struct Row: Sendable, Hashable {
        public var batchId: String
        public var fileId: String
        /// The batch's tenant, when its job named one.
        public var tenant: String?
        public var loaded: Int64 = 0
        public var total: Int64 = 0
        public var percent = 0
        public var state = "queued"
        public var errorCode: String?
        /// Bytes per second over the last progress interval.
        public var rate: Double?
        var lastProgress: (loaded: Int64, at: Date)?

        public static func == (left: Row, right: Row) -> Bool {
            left.batchId == right.batchId && left.fileId == right.fileId && left.loaded == right.loaded && left.total == right.total
                && left.percent == right.percent && left.state == right.state && left.errorCode == right.errorCode && left.rate == right.rate
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(batchId)
            hasher.combine(fileId)
        }
    }

    public private(set) var rows: [Row] = []
    private var index: [String: Int] = [:]
    private var batches: Set<String> = []

    public init() {}

    /// Takes one event; returns the line to print for it above the bars (messages, drains, invalid jobs), if any.
    @discardableResult
    public mutating func take(_ event: WatchedEvent, at now: Date) -> String? {
        batches.insert(event.batchId)
        let data = event.data
        switch event.type {
        case "attache.file.progress":
            update(event) { row in
                let loaded = data["loaded"]?.wholeNumber ?? row.loaded
                if let last = row.lastProgress, now > last.at, loaded >= last.loaded {
                    row.rate = Double(loaded - last.loaded) / now.timeIntervalSince(last.at)
                }
                row.lastProgress = (loaded, now)
                row.loaded = loaded
                row.total = data["total"]?.wholeNumber ?? row.total
                row.percent = Int(data["percent"]?.wholeNumber ?? Int64(row.percent))
                row.state = "uploading"
            }
        case "attache.file.uploaded":
            update(event) { row in
                let size = data["attachment"]?["size"]?.wholeNumber ?? row.total
                row.total = size
                row.loaded = size
                row.percent = 100
                row.state = "uploaded"
                row.errorCode = nil
            }
        case "attache.file.rejected":
            update(event) { row in
                row.state = "rejected"
                row.errorCode = event.errorCode
            }
        case "attache.file.failed":
            update(event) { row in
                row.state = data["willRetry"]?.boolValue == true ? "retrying" : "failed"
                row.errorCode = event.errorCode
                row.rate = nil
            }
        case "attache.file.removed":
            update(event) { row in
                row.state = "removed"
                row.rate = nil
            }
        case "attache.batch.completed":
            let result = data["result"]
            let uploaded = result?["successful"]?.arrayValue?.count ?? 0
            let rejected = result?["rejectedTotal"]?.wholeNumber ?? Int64(result?["rejected"]?.arrayValue?.count ?? 0)
            let failed = result?["failed"]?.arrayValue?.count ?? 0
            return "batch \(event.batchId) drained: \(uploaded) uploaded, \(rejected) rejected, \(failed) failed"
        case "attache.message.sent":
            let files = data["fileIds"]?.arrayValue?.compactMap(\.stringValue).joined(separator: ", ") ?? ""
            return "batch \(event.batchId) message sent: \(data["messageType"]?.stringValue ?? "?") [\(files)]"
        case "attache.message.failed":
            let retry = data["willRetry"]?.boolValue == true ? ", will retry" : ""
            return "batch \(event.batchId) message failed: \(event.errorCode ?? "?") \(data["error"]?["message"]?.stringValue ?? "")\(retry)"
        case "attache.job.invalid":
            return "job invalid (key \(event.batchId)): \(data["reason"]?.stringValue ?? "?")"
        default:
            break
        }
        return nil
    }

    private mutating func update(_ event: WatchedEvent, _ change: (inout Row) -> Void) {
        guard let fileId = event.fileId else { return }
        let key = "\(event.batchId)\u{0}\(fileId)"
        let position: Int
        if let existing = index[key] {
            position = existing
        } else {
            position = rows.count
            rows.append(Row(batchId: event.batchId, fileId: fileId))
            index[key] = position
        }
        if let tenant = event.tenant { rows[position].tenant = tenant }
        change(&rows[position])
    }

    /// The bars, one line each, none longer than `width` characters: the name shrinks first, then the rate, the
    /// bytes and the bar itself go; percent, state and error code always stay.
    public func lines(width: Int) -> [String] {
        let showBatch = batches.count > 1
        return rows.map { row in
            let name = showBatch ? "\(row.batchId)/\(row.fileId)" : row.fileId
            return Self.line(row, name: row.tenant.map { "\($0): \(name)" } ?? name, width: max(width, 20))
        }
    }

    static func line(_ row: Row, name: String, width: Int) -> String {
        let percent = String(format: "%3d%%", row.percent)
        let tail = row.state + (row.errorCode.map { " \($0)" } ?? "")
        let bytes = row.total > 0 ? "\(byteText(row.loaded))/\(byteText(row.total))" : byteText(row.loaded)
        let rate = row.state == "uploading" ? row.rate.map { "\(byteText(Int64($0)))/s" } : nil
        // Optional parts in the order they are dropped when the width is short.
        var optional: [String?] = [rate, bytes]
        var barWidth = 20
        func assemble(nameWidth: Int) -> String {
            let bar = barWidth > 0 ? "[" + String(repeating: "#", count: barWidth * min(row.percent, 100) / 100)
                .padding(toLength: barWidth, withPad: "-", startingAt: 0) + "] " : ""
            let parts = [fit(name, nameWidth), bar + percent] + optional.reversed().compactMap { $0 } + [tail]
            return parts.filter { !$0.isEmpty }.joined(separator: "  ")
        }
        let fixed = { (nameWidth: Int) in assemble(nameWidth: nameWidth).count }
        var nameWidth = min(name.count, 32)
        while fixed(nameWidth) > width {
            if nameWidth > 12 {
                nameWidth -= 1
            } else if let last = optional.indices.first(where: { optional[$0] != nil }) {
                optional[last] = nil
            } else if barWidth > 5 {
                barWidth -= 1
            } else if barWidth > 0 {
                barWidth = 0
            } else if nameWidth > 4 {
                nameWidth -= 1
            } else {
                break
            }
        }
        return String(assemble(nameWidth: nameWidth).prefix(width))
    }

    private static func fit(_ text: String, _ width: Int) -> String {
        guard text.count > width else { return text.padding(toLength: width, withPad: " ", startingAt: 0) }
        return String(text.prefix(max(width - 1, 0))) + "…"
    }

    static func byteText(_ bytes: Int64) -> String {
        ByteCountText.text(bytes)
    }
}
