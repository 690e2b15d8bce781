/// Files and bytes stored per worker (`source`) in buckets of ten seconds over the last fifteen minutes of event
/// time: the throughput panel. Bytes count as they move (progress deltas), files as they are stored.
public struct ThroughputWindow: Sendable, Hashable {
    /// The width of one bucket.
    public static let bucketMilliseconds: Int64 = 10_000
    /// Buckets kept per worker: fifteen minutes.
    public static let bucketsKept: Int64 = 90

    /// What one bucket counts.
    public struct Tally: Sendable, Hashable {
        public var files = 0
        public var bytes: Int64 = 0
    }

    /// Source → bucket (milliseconds since 1970 ÷ bucket width) → tally.
    public private(set) var sources: [String: [Int64: Tally]] = [:]

    public init() {}

    /// Adds what one event moved for `source` at `time`.
    mutating func add(source: String, at time: Int64, files: Int, bytes: Int64) {
        guard files > 0 || bytes > 0 else { return }
        let bucket = time / Self.bucketMilliseconds
        var tallies = sources[source] ?? [:]
        tallies[bucket, default: Tally()].files += files
        tallies[bucket, default: Tally()].bytes += bytes
        if let newest = tallies.keys.max(), tallies.count > Int(Self.bucketsKept) {
            tallies = tallies.filter { $0.key > newest - Self.bucketsKept }
        }
        sources[source] = tallies
    }

    /// Forgets a worker (the roster let it go).
    mutating func forget(_ source: String) {
        sources[source] = nil
    }

    /// Files and bytes per second of `source` over the `seconds` before `now` (milliseconds since 1970).
    public func rate(of source: String, over seconds: Int64, endingAt now: Int64) -> (files: Double, bytes: Double) {
        let first = (now - seconds * 1000) / Self.bucketMilliseconds
        var files = 0
        var bytes: Int64 = 0
        for (bucket, tally) in sources[source] ?? [:] where bucket > first && bucket <= now / Self.bucketMilliseconds {
            files += tally.files
            bytes += tally.bytes
        }
        return (Double(files) / Double(seconds), Double(bytes) / Double(seconds))
    }
}
