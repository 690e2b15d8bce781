/// The workers seen (by the events' `source`) and when each last published: the workers panel.
public struct WorkerRoster: Sendable, Hashable {
    /// One worker.
    public struct Sighting: Sendable, Hashable {
        public let source: String
        /// Milliseconds since 1970.
        public var firstSeen: Int64
        public var lastSeen: Int64
        public var events = 0
    }

    public private(set) var workers: [String: Sighting] = [:]

    public init() {}

    /// Notes an event from `source` at `time`; returns the worker forgotten to stay within `limit`, if one was.
    mutating func saw(_ source: String, at time: Int64, limit: Int) -> String? {
        var sighting = workers[source] ?? Sighting(source: source, firstSeen: time, lastSeen: time)
        sighting.events += 1
        sighting.lastSeen = max(sighting.lastSeen, time)
        sighting.firstSeen = min(sighting.firstSeen, time)
        workers[source] = sighting
        guard workers.count > limit, let stalest = workers.values.min(by: { $0.lastSeen < $1.lastSeen }) else { return nil }
        workers[stalest.source] = nil
        return stalest.source
    }
}
