/// Failures and rejections by error code over time, and the latest ones with their messages: the errors panel.
///
/// Counts go into one bucket per minute of the events' own times; only the newest `bucketsKept` minutes are kept,
/// and at most `DashboardLimits.errorCodes` distinct codes are (a code past them counts as `other`), so the tally
/// stays small however long the topic is.
public struct ErrorTally: Sendable, Hashable {
    /// The width of one bucket.
    public static let bucketMilliseconds: Int64 = 60_000
    /// Buckets kept: an hour.
    public static let bucketsKept: Int64 = 60
    /// What a code past the limit is counted as.
    public static let otherCode = "other"

    /// Every problem seen, by code.
    public private(set) var totals: [String: Int] = [:]
    /// Whether a code was last seen on a rejection, a failure or a message.
    public private(set) var kinds: [String: ProblemNote.Kind] = [:]
    /// Minute (milliseconds since 1970 ÷ bucket width) → code → count.
    public private(set) var buckets: [Int64: [String: Int]] = [:]
    /// The latest problems, oldest first.
    public private(set) var latest: [ProblemNote] = []
    private var newestBucket: Int64?

    public init() {}

    /// Counts one problem and lists it among the latest.
    mutating func take(_ note: ProblemNote, limits: DashboardLimits) {
        let code = totals[note.code] != nil || totals.count < limits.errorCodes ? note.code : Self.otherCode
        totals[code, default: 0] += 1
        kinds[code] = note.kind
        let bucket = note.time / Self.bucketMilliseconds
        let newest = max(newestBucket ?? bucket, bucket)
        if bucket > newest - Self.bucketsKept {
            buckets[bucket, default: [:]][code, default: 0] += 1
        }
        if newest != newestBucket {
            newestBucket = newest
            buckets = buckets.filter { $0.key > newest - Self.bucketsKept }
        }
        latest.append(note)
        if latest.count > limits.latestProblems { latest.removeFirst(latest.count - limits.latestProblems) }
    }
}
