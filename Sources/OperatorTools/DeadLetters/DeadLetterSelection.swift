import Foundation
import Records
import WireFormat

/// Which dead letters `attache dlq list|replay` takes: `--since`, `--match`, `--limit`, checked before anything is read.
public struct DeadLetterSelection: Sendable {
    public let since: Date?
    public let match: String?
    public let limit: Int?

    /// `since` is an RFC 3339 time or a duration back from `now` (`30m`, `2h`).
    public init(since: String?, match: String?, limit: String?, now: Date = Date()) throws(RecordInputError) {
        if let since {
            if let time = RFC3339Instant.parse(since) {
                self.since = time
            } else if let back = ConfigurationValue.duration(since) {
                self.since = now.addingTimeInterval(-Double(back.components.seconds) - Double(back.components.attoseconds) / 1e18)
            } else {
                throw RecordInputError("--since must be an RFC 3339 time (2026-12-01T17:00:00Z) or a duration such as 30m or 2h")
            }
        } else {
            self.since = nil
        }
        if let limit {
            guard let number = Int(limit), number >= 1 else { throw RecordInputError("--limit must be a whole number from 1") }
            self.limit = number
        } else {
            self.limit = nil
        }
        self.match = match
    }

    /// The chosen dead letters, oldest first: on or after `since`, matching `match`, at most `limit` (the oldest).
    public func choose(from letters: [DeadLetter]) -> [DeadLetter] {
        let chosen = letters.filter { letter in
            (since.map { since in letter.time.map { $0 >= since } ?? false } ?? true) && (match.map(letter.matches) ?? true)
        }.sorted { ($0.time ?? .distantPast, $0.partition, $0.offset) < ($1.time ?? .distantPast, $1.partition, $1.offset) }
        return limit.map { Array(chosen.prefix($0)) } ?? chosen
    }
}
