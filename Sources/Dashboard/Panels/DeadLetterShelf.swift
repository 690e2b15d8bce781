/// The dead letters (DESIGN §4): records the workers refused, with where they came from and why, newest last.
///
/// Two records tell about one refused record — its copy on the dead-letter topic and the `attache.job.invalid`
/// event — and they are read from two topics in no order between them, so an entry is keyed by the refused record's
/// `topic/partition/offset` and each adds what it knows. An event saying the copy could not be stored
/// (`dlq: failed: …`) leaves an entry without a copy.
public struct DeadLetterShelf: Sendable, Hashable {
    /// One refused record.
    public struct Entry: Sendable, Hashable {
        /// `topic/partition/offset` of the refused record.
        public let provenance: String
        /// Milliseconds since 1970: the dead letter's timestamp, else the event's time.
        public var time: Int64
        public var key: String?
        /// Why it was refused (`attache.error`, or the event's `reason`).
        public var error: String?
        /// The event's `dlq`: `ok`, or `failed: <reason>`; nil until the event was read.
        public var outcome: String?
        /// `partition/offset` of the copy on the dead-letter topic, once read.
        public var copy: String?
        /// The start of the refused value, escaped.
        public var preview: String?
    }

    public private(set) var entries: [Entry] = []
    private var positions: [String: Int] = [:]

    public init() {}

    /// Adds what one record says about the refused record at `provenance`.
    mutating func update(_ provenance: String, at time: Int64, limit: Int, _ change: (inout Entry) -> Void) {
        if let position = positions[provenance] {
            change(&entries[position])
            return
        }
        var entry = Entry(provenance: provenance, time: time)
        change(&entry)
        positions[provenance] = entries.count
        entries.append(entry)
        if entries.count > limit {
            entries.removeFirst(entries.count - limit)
            positions = Dictionary(uniqueKeysWithValues: entries.enumerated().map { ($1.provenance, $0) })
        }
    }
}
